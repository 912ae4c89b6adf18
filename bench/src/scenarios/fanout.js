// R3: fan-out `tools/list` through `mcppipe up` with 1, 5 and 20 stdio upstreams × 50 tools (bench/fixtures/
// list-server.mjs, one process each), cached and cold. "Cold" upstreams are started with --volatile: each sends
// tools/list_changed right after answering a list, so mcppipe's per-upstream cache is stale at every call and
// every call fetches all N lists again (checked: the first tool's `fetch #N` counter must grow call after call).
// One upstream alone is `single` mode (forwarded, never cached), so "1" is also measured in aggregate mode by
// adding an upstream that lists no tools; that row is the denominator of T4.
import { drivers, runLoad } from '../lib/loadgen.js';
import { LIST_FIXTURE, nodeCommand, startMcppipe } from '../lib/processes.js';
import { describeRun } from '../lib/util.js';

const TOOLS = 50;

function layoutArgs(n, { volatile, empty }) {
  const args = [];
  for (let i = 1; i <= n; i++) {
    const name = `f${String(i).padStart(2, '0')}`;
    args.push(
      '--stdio',
      `${name}=${nodeCommand(LIST_FIXTURE, '--tools', String(TOOLS), ...(volatile ? ['--volatile'] : []))}`,
    );
  }
  if (empty) args.push('--stdio', `zz=${nodeCommand(LIST_FIXTURE, '--tools', '0')}`);
  return args;
}

function listCheck(expected, cold) {
  let last = -1;
  return (result) => {
    const tools = result?.tools;
    if (!Array.isArray(tools) || tools.length !== expected)
      throw new Error(`expected ${expected} tools, got ${tools?.length}`);
    if (cold) {
      const m = / fetch #(\d+)$/.exec(tools[0].description ?? '');
      const n = m ? Number(m[1]) : NaN;
      if (!(n > last)) throw new Error(`list not fetched anew (fetch #${n} after #${last})`);
      last = n;
    }
    return true;
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
    out[layout.key] = {};
    for (const cold of [false, true]) {
      const mcppipe = await startMcppipe(layoutArgs(layout.n, { volatile: cold, empty: layout.empty }));
      try {
        const expected = layout.n * TOOLS;
        const driver = drivers.legacySession({
          port: mcppipe.port,
          request: { method: 'tools/list', params: {} },
          check: listCheck(expected, cold),
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
        log(`  ${layout.key} upstream(s), ${cold ? 'cold' : 'cached'}: ${describeRun(r)}`);
        out[layout.key][cold ? 'cold' : 'cached'] = {
          upstreams: layout.n,
          tools: expected,
          p50: r.p50,
          p99: r.p99,
          perSecond: r.perSecond,
          cpuPerListMs: r.targets.t.cpuPerCallMs,
          upstreamCpuPerListMs: r.targets.t.childrenCpuPerCallMs,
          ok: r.ok,
          errors: r.errors,
          ...(r.firstError ? { firstError: r.firstError } : {}),
        };
      } finally {
        await mcppipe.stop();
      }
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
      const row = {
        id: 'R3',
        what: `tools/list c=1 p50, ${key} × ${TOOLS} tools, ${mode}`,
        value: m.p50,
        unit: 'ms',
      };
      if (b && key !== '1 (aggregate)')
        Object.assign(row, {
          baseline: b.p50,
          baselineName: `1 upstream (aggregate), ${mode}`,
          ratio: m.p50 / b.p50,
        });
      if (key === '20' && mode === 'cached' && b)
        Object.assign(row, { target: 'T4', limit: { max: 1.5 }, met: m.p50 / b.p50 <= 1.5 });
      rows.push(row);
    }
  }
  return rows;
}
