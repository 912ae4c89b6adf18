// R4: memory growth of `mcppipe up` (one stdio server-everything upstream).
//  - sessions: whole 2025 sessions opened and closed (initialize, notifications/initialized, DELETE), c=16;
//  - stateless: `mcppipe up --stateless` answering 2025-era tools/call requests without a session (a fresh server
//    per request), c=16.
// RSS of the mcppipe process (upstream excluded) after the warm-up, at checkpoints, and after the run plus a short
// idle pause, compared with the RSS after warm-up. Bounded by a count and a time budget; the count actually run is
// reported (nothing is extrapolated).
// Both RSS readings are taken after a forced full GC (RSS under load swings by ±25 MB with the collector's cycles).
// RSS also counts heap the V8 collector keeps reserved and allocator fragmentation, so the live JavaScript heap is
// measured too, after a forced full GC (through the inspector: `--inspect=127.0.0.1:0`, HeapProfiler.collectGarbage,
// Runtime.getHeapUsage; a heap snapshot would inflate the RSS it is compared with). A leak of JS objects shows in
// both; memory V8 or the allocator keeps only in RSS.
import { liveHeapBytes, openInspector } from '../lib/inspector.js';
import { drivers, echoCheck, runLoad } from '../lib/loadgen.js';
import { nodeCommand, referenceServerPath, startMcppipe } from '../lib/processes.js';
import { rssBytes } from '../lib/proc.js';
import { describeRun, median, sleep } from '../lib/util.js';

const MB = 2 ** 20;

/** The live JS heap of the process in MB, after a full garbage collection (through the inspector). */
async function liveHeapMB(mcppipe) {
  try {
    return (await liveHeapBytes(mcppipe.inspector)) / MB;
  } catch {
    return NaN;
  }
}

/**
 * RSS swings by tens of MB with the collector's cycles under load, so both ends are read the same way: right after a
 * full GC (liveHeapMB) and a short pause, as the median of five samples.
 */
async function settledRssMB(mcppipe) {
  await sleep(500);
  const samples = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssBytes(mcppipe.pid) / MB);
    await sleep(100);
  }
  return median(samples);
}

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
  const heapAfterWarm = await liveHeapMB(mcppipe);
  const afterWarm = await settledRssMB(mcppipe);
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
  const heapAfter = await liveHeapMB(mcppipe);
  const after = await settledRssMB(mcppipe);
  log(
    `  ${label}: ${done} in ${seconds.toFixed(1)} s (${errors} errors), RSS ${afterWarm.toFixed(1)} → ${after.toFixed(1)} MB, ` +
      `live heap ${heapAfterWarm.toFixed(1)} → ${heapAfter.toFixed(1)} MB`,
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
    liveHeapAfterWarmupMB: heapAfterWarm,
    liveHeapAfterMB: heapAfter,
    liveHeapGrowthMB: heapAfter - heapAfterWarm,
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
  const start = async (extra) => {
    const proc = await startMcppipe(['--stdio', everything, ...extra], {
      nodeArgs: ['--inspect=127.0.0.1:0'],
    });
    const ws = /Debugger listening on (ws:\/\/\S+)/.exec(proc.output())?.[1];
    const inspector = ws ? await openInspector(ws).catch(() => undefined) : undefined;
    return { ...proc, inspector };
  };
  const out = {};
  for (const [key, extra, label] of [
    ['sessions', [], 'session open/close cycles'],
    ['stateless', ['--stateless'], 'stateless requests'],
  ]) {
    const mcppipe = await start(extra);
    try {
      const request = { method: 'tools/call', params: { name: 'echo', arguments: { message: 'bench' } } };
      const driver =
        key === 'sessions'
          ? drivers.sessionCycle({ port: mcppipe.port })
          : drivers.legacyStateless({ port: mcppipe.port, request, check: echoCheck('bench') });
      out[key] = await grow(mcppipe, driver, cfg, log, label);
    } finally {
      mcppipe.inspector?.close();
      await mcppipe.stop();
    }
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
    const count = `${m.count.toLocaleString('en-US')}${m.count < m.target ? ` (time-bounded; ${m.target.toLocaleString('en-US')} asked)` : ''}`;
    rows.push(
      {
        id: 'R4',
        what: `RSS growth after ${count} ${what}`,
        value: m.growthMB,
        unit: 'MB',
        baseline: m.rssAfterWarmupMB,
        baselineName: 'RSS after warm-up',
        target: 'T5',
        limit: { maxValue: 5 },
        met: m.growthMB <= 5,
      },
      {
        id: 'R4',
        what: `live JS heap growth (after GC) over the same ${what.split(' (')[0]}`,
        value: m.liveHeapGrowthMB,
        unit: 'MB',
        baseline: m.liveHeapAfterWarmupMB,
        baselineName: 'live heap after warm-up',
      },
    );
  }
  return rows;
}
