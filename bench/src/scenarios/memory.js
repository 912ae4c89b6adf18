// R4: memory growth of `mcppipe up` (one stdio server-everything upstream).
//  - sessions: whole 2025 sessions opened and closed (initialize, notifications/initialized, DELETE), c=16;
//  - stateless: `mcppipe up --stateless` answering 2025-era tools/call requests without a session (a fresh server
//    per request), c=16.
// RSS of the mcppipe process (upstream excluded) after the warm-up, at checkpoints, and after the run plus a short
// idle pause, compared with the RSS after warm-up. Bounded by a count and a time budget; the count actually run is
// reported (nothing is extrapolated).
import { drivers, echoCheck, runLoad } from '../lib/loadgen.js';
import { nodeCommand, referenceServerPath, startMcppipe } from '../lib/processes.js';
import { rssBytes } from '../lib/proc.js';
import { describeRun, sleep } from '../lib/util.js';

const MB = 2 ** 20;

async function grow(mcppipe, driver, cfg, log, label) {
  let id = 1;
  const warm = await runLoad({
    driver,
    concurrency: 16,
    maxCalls: cfg.memWarm,
    maxMs: cfg.memWarmMs,
    firstId: id,
  });
  id += warm.calls;
  log(`  ${label} warm-up: ${describeRun(warm)}`);
  await sleep(cfg.memSettleMs);
  const afterWarm = rssBytes(mcppipe.pid) / MB;
  const checkpoints = [];
  const started = Date.now();
  let done = 0;
  let errors = 0;
  let firstError;
  const chunk = Math.max(1, Math.ceil(cfg.memCount / 10));
  while (done < cfg.memCount && Date.now() - started < cfg.memMs) {
    const r = await runLoad({
      driver,
      concurrency: 16,
      maxCalls: Math.min(chunk, cfg.memCount - done),
      maxMs: cfg.memMs - (Date.now() - started),
      firstId: id,
    });
    id += r.calls;
    done += r.ok;
    errors += r.errors;
    firstError ??= r.firstError;
    checkpoints.push({
      count: done,
      rssMB: rssBytes(mcppipe.pid) / MB,
      seconds: (Date.now() - started) / 1000,
    });
  }
  const seconds = (Date.now() - started) / 1000;
  await sleep(cfg.memSettleMs);
  const after = rssBytes(mcppipe.pid) / MB;
  log(
    `  ${label}: ${done} in ${seconds.toFixed(1)} s (${errors} errors), RSS ${afterWarm.toFixed(1)} → ${after.toFixed(1)} MB`,
  );
  return {
    count: done,
    target: cfg.memCount,
    seconds,
    errors,
    ...(firstError ? { firstError } : {}),
    rssAfterWarmupMB: afterWarm,
    rssAfterMB: after,
    growthMB: after - afterWarm,
    peakMB: Math.max(afterWarm, after, ...checkpoints.map((c) => c.rssMB)),
    checkpoints,
  };
}

/**
 * @param {object} cfg see run.js
 * @param {(line: string) => void} log
 */
export async function memory(cfg, log) {
  const everything = `everything=${nodeCommand(referenceServerPath('everything'))}`;
  const out = {};
  const sessions = await startMcppipe(['--stdio', everything]);
  try {
    out.sessions = await grow(
      sessions,
      drivers.sessionCycle({ port: sessions.port }),
      cfg,
      log,
      'session open/close cycles',
    );
  } finally {
    await sessions.stop();
  }
  const stateless = await startMcppipe(['--stdio', everything, '--stateless']);
  try {
    const request = { method: 'tools/call', params: { name: 'echo', arguments: { message: 'bench' } } };
    const driver = drivers.legacyStateless({ port: stateless.port, request, check: echoCheck('bench') });
    out.stateless = await grow(stateless, driver, cfg, log, 'stateless requests');
  } finally {
    await stateless.stop();
  }
  return out;
}

export function memoryRows(s) {
  const rows = [];
  for (const [key, what] of [
    ['sessions', '2025 session open/close cycles (initialize, initialized, DELETE)'],
    ['stateless', 'stateless requests (--stateless, 2025 tools/call)'],
  ]) {
    const m = s[key];
    if (!m) continue;
    rows.push({
      id: 'R4',
      what: `RSS growth after ${m.count.toLocaleString('en-US')} ${what}${m.count < m.target ? ` (time-bounded; ${m.target.toLocaleString('en-US')} asked)` : ''}`,
      value: m.growthMB,
      unit: 'MB',
      baseline: m.rssAfterWarmupMB,
      baselineName: 'RSS after warm-up (MB)',
      target: 'T5',
      limit: { maxValue: 5 },
      met: m.growthMB <= 5,
    });
  }
  return rows;
}
