// R3: fan-out `tools/list` through `mcppipe up` with 1, 5 and 20 stdio upstreams × 50 tools (bench/fixtures/
// list-server.mjs, one process each), cached and cold.
//  - cached: repeated tools/list, served from mcppipe's per-upstream caches (c=1);
//  - cold: every upstream announces tools/list_changed at once (SIGUSR2 to the fixtures) and the time runs until a
//    client's tools/list shows every upstream's list fetched anew (each fixture's first tool carries `fetch #N`); the
//    client lists again at once whenever a list is still partly stale. This is what an agent waits for after all
//    its servers changed: notification, invalidation, N fetches (mcppipe starts them when notified), one merge.
// One upstream alone is `single` mode (forwarded, never cached), so "1" is also measured in aggregate mode by
// adding an upstream that lists no tools; that row is the denominator of T4.
import { performance } from 'node:perf_hooks';
import { agentFor, drivers, exchange, resultOf, runLoad, template } from '../lib/loadgen.js';
import { cpuDelta, descendants, sampleTree } from '../lib/proc.js';
import { LIST_FIXTURE, nodeCommand, startMcppipe } from '../lib/processes.js';
import { describeRun, median } from '../lib/util.js';

const TOOLS = 50;
const COLD_TRIES = 1_000;
const COLD_ITERATION_MS = 10_000;

function layoutArgs(n, empty) {
  const args = [];
  for (let i = 1; i <= n; i++) {
    const name = `f${String(i).padStart(2, '0')}`;
    args.push('--stdio', `${name}=${nodeCommand(LIST_FIXTURE, '--tools', String(TOOLS), '--touchable')}`);
  }
  if (empty) args.push('--stdio', `zz=${nodeCommand(LIST_FIXTURE, '--tools', '0', '--touchable')}`);
  return args;
}

/** Fetch counters of every upstream's first tool, by tool name. */
function counters(tools) {
  const out = new Map();
  for (const t of tools) {
    const m = / fetch #(\d+)$/.exec(t.description ?? '');
    if (m) out.set(t.name, Number(m[1]));
  }
  return out;
}

function listCheck(expected, seen) {
  return (result) => {
    const tools = result?.tools;
    seen.bytes ??= JSON.stringify(result).length;
    if (!Array.isArray(tools) || tools.length !== expected) {
      throw new Error(`expected ${expected} tools, got ${tools?.length}`);
    }
    return true;
  };
}

const listBody = template({ method: 'tools/list', params: {} });

/** Cold: change every upstream, time until a tools/list shows all of them fetched anew. */
async function coldRuns(mcppipe, expected, cfg) {
  const agent = agentFor(1);
  const driver = drivers.legacySession({
    port: mcppipe.port,
    request: { method: 'tools/list', params: {} },
    check: () => true,
  });
  const ctx = await driver.setup(agent);
  const fixtures = descendants(mcppipe.pid);
  let id = 1_000_000;
  const list = async () => {
    id++;
    const tools = resultOf(
      await exchange(agent, mcppipe.port, 'POST', '/mcp', ctx.headers, listBody.body(id)),
      id,
    ).tools;
    if (tools.length !== expected) throw new Error(`expected ${expected} tools, got ${tools.length}`);
    return counters(tools);
  };
  const times = [];
  let lists = 0;
  let cpu = 0;
  const started = Date.now();
  try {
    let last = await list();
    for (let i = 0; i < cfg.coldIterations && Date.now() - started < cfg.listMs; i++) {
      const before = sampleTree(mcppipe.pid);
      const t0 = performance.now();
      for (const pid of fixtures) process.kill(pid, 'SIGUSR2');
      let now;
      for (let tries = 0; tries < COLD_TRIES && performance.now() - t0 < COLD_ITERATION_MS; tries++) {
        now = await list();
        lists++;
        if ([...last].every(([name, n]) => (now.get(name) ?? 0) > n)) break;
        now = undefined;
      }
      if (!now) throw new Error('the upstreams did not all list anew in time');
      times.push(performance.now() - t0);
      cpu += cpuDelta(before, sampleTree(mcppipe.pid)).self;
      last = now;
    }
  } finally {
    await driver.teardown(ctx);
    agent.destroy();
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    iterations: times.length,
    p50: median(times),
    p99: sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))],
    listsPerIteration: lists / Math.max(1, times.length),
    cpuPerIterationMs: cpu / Math.max(1, times.length),
  };
}

/**
 * @param {object} cfg see run.js
 * @param {(line: string) => void} log
 */
export async function fanout(cfg, log) {
  const layouts = [
    { key: '1 (single mode)', n: 1, empty: false },
    { key: '1 (aggregate)', n: 1, empty: true },
    { key: '5', n: 5, empty: false },
    { key: '20', n: 20, empty: false },
  ];
  const out = {};
  for (const layout of layouts) {
    const mcppipe = await startMcppipe(layoutArgs(layout.n, layout.empty));
    try {
      const expected = layout.n * TOOLS;
      const seen = {};
      const driver = drivers.legacySession({
        port: mcppipe.port,
        request: { method: 'tools/list', params: {} },
        check: listCheck(expected, seen),
      });
      const warm = await runLoad({ driver, concurrency: 1, maxCalls: cfg.listWarm, maxMs: cfg.listMs });
      const r = await runLoad({
        driver,
        concurrency: 1,
        maxCalls: cfg.listCalls,
        maxMs: cfg.listMs,
        watch: { t: mcppipe.pid },
        firstId: warm.calls + 1,
      });
      log(`  ${layout.key} upstream(s), cached: ${describeRun(r)}`);
      const cold = await coldRuns(mcppipe, expected, cfg);
      log(
        `  ${layout.key} upstream(s), cold: ${cold.iterations} changes, p50 ${cold.p50.toFixed(2)} ms, ` +
          `${cold.listsPerIteration.toFixed(1)} lists per change, mcppipe CPU ${cold.cpuPerIterationMs.toFixed(2)} ms per change`,
      );
      out[layout.key] = {
        cached: {
          upstreams: layout.n,
          tools: expected,
          resultBytes: seen.bytes,
          p50: r.p50,
          p99: r.p99,
          checkedP50: r.checkedP50,
          perSecond: r.perSecond,
          cpuPerListMs: r.targets.t.cpuPerCallMs,
          upstreamCpuPerListMs: r.targets.t.childrenCpuPerCallMs,
          ok: r.ok,
          errors: r.errors,
          ...(r.firstError ? { firstError: r.firstError } : {}),
        },
        cold: {
          upstreams: layout.n,
          tools: expected,
          resultBytes: seen.bytes,
          ...cold,
          cpuPerListMs: cold.cpuPerIterationMs,
        },
      };
    } finally {
      await mcppipe.stop();
    }
  }
  return out;
}

export function fanoutRows(s) {
  const rows = [];
  const base = s['1 (aggregate)'];
  for (const [key, v] of Object.entries(s)) {
    for (const mode of ['cached', 'cold']) {
      const m = v[mode];
      if (!m) continue;
      const b = base?.[mode];
      const kb = m.resultBytes ? `, ${(m.resultBytes / 1024).toFixed(0)} KB` : '';
      const row = {
        id: 'R3',
        what:
          mode === 'cold'
            ? `all upstreams changed → fresh tools/list, p50, ${key} × ${TOOLS} tools${kb}`
            : `tools/list c=1 p50, ${key} × ${TOOLS} tools${kb}, cached`,
        value: m.p50,
        unit: 'ms',
      };
      if (b && key !== '1 (aggregate)') {
        Object.assign(row, {
          baseline: b.p50,
          baselineName: `1 upstream (aggregate), ${mode}`,
          ratio: m.p50 / b.p50,
        });
      }
      if (key === '20' && mode === 'cached' && b) {
        Object.assign(row, { target: 'T4', limit: { max: 1.5 }, met: m.p50 / b.p50 <= 1.5 });
      }
      rows.push(row);
      if (key === '20' && b) {
        rows.push({
          id: 'R3',
          what:
            mode === 'cold'
              ? `mcppipe CPU per change of all 20 upstreams (fetch, expose, merge, answer)`
              : `mcppipe CPU per tools/list, 20 × ${TOOLS} tools, cached`,
          value: m.cpuPerListMs,
          unit: 'ms',
          baseline: b.cpuPerListMs,
          baselineName: `1 upstream (aggregate), ${mode}`,
          ratio: m.cpuPerListMs / b.cpuPerListMs,
        });
        if (mode === 'cached' && m.checkedP50 !== undefined && b.checkedP50 !== undefined) {
          rows.push({
            id: 'R3',
            what: `context: the same, p50 including the client parsing the ${kb.slice(2) || ''} answer`,
            value: m.checkedP50,
            unit: 'ms',
            baseline: b.checkedP50,
            baselineName: '1 upstream (aggregate), cached, parsed',
            ratio: m.checkedP50 / b.checkedP50,
          });
        }
      }
    }
  }
  return rows;
}
