// R1 and R2: `tools/call echo` through `mcppipe up` (one stdio server-everything upstream) against
//  - the "one MCP hop" floor: the SDK's own Streamable HTTP server answering echo in process (sdk-echo.js), per era;
//  - the HTTP floor: a plain Fastify JSON echo route (fastify-echo.js).
// Plus the aggregate mode (two upstreams, `everything__echo`) as an extra row. Every target runs in its own process
// and is measured in interleaved rounds (the machine is shared); each round is c=1 (latency) then c=16 (throughput).
import { drivers, echoCheck, runLoad } from '../lib/loadgen.js';
import { measureRounds } from '../lib/rounds.js';
import {
  LIST_FIXTURE,
  nodeCommand,
  referenceServerPath,
  startBaseline,
  startMcppipe,
} from '../lib/processes.js';
import { cpuPerCall, describeRun, median } from '../lib/util.js';

const MESSAGE = 'bench';
const echo = (name) => ({ method: 'tools/call', params: { name, arguments: { message: MESSAGE } } });

/**
 * @param {object} cfg see run.js
 * @param {(line: string) => void} log
 * @param {{ nodeArgs?: string[] }} [options] node flags for the mcppipe processes (profiling)
 */
export async function overhead(cfg, log, options = {}) {
  const check = echoCheck(MESSAGE);
  const everything = nodeCommand(referenceServerPath('everything'));
  const [sdk, fastify, single, aggregate] = await Promise.all([
    startBaseline('sdk-echo.js'),
    startBaseline('fastify-echo.js'),
    startMcppipe(['--stdio', `everything=${everything}`], options),
    cfg.aggregateRow
      ? startMcppipe(
          [
            '--stdio',
            `everything=${everything}`,
            '--stdio',
            `fixture=${nodeCommand(LIST_FIXTURE, '--tools', '5')}`,
          ],
          options,
        )
      : undefined,
  ]);
  const targets = [
    {
      key: 'floor-session',
      pid: sdk.pid,
      warm: cfg.warmBaseline,
      driver: drivers.legacySession({ port: sdk.port, path: '/session', request: echo('echo'), check }),
    },
    {
      key: 'floor-modern',
      pid: sdk.pid,
      warm: cfg.warmBaseline,
      driver: drivers.modern({ port: sdk.port, path: '/modern', request: echo('echo'), check }),
    },
    {
      key: 'fastify',
      pid: fastify.pid,
      warm: cfg.warmBaseline,
      driver: drivers.plain({ port: fastify.port, path: '/echo', request: echo('echo'), check }),
    },
    {
      key: 'mcppipe-session',
      pid: single.pid,
      warm: cfg.warmUpstream,
      driver: drivers.legacySession({ port: single.port, request: echo('echo'), check }),
    },
    {
      key: 'mcppipe-modern',
      pid: single.pid,
      warm: cfg.warmBaseline,
      driver: drivers.modern({ port: single.port, request: echo('echo'), check }),
    },
    ...(aggregate
      ? [
          {
            key: 'mcppipe-aggregate',
            pid: aggregate.pid,
            warm: cfg.warmUpstream,
            driver: drivers.legacySession({ port: aggregate.port, request: echo('everything__echo'), check }),
          },
        ]
      : []),
  ];
  const only = options.only ? targets.filter((t) => options.only.includes(t.key)) : targets;

  let id = 1;
  // Warm-up: server-everything needs ~5,000 calls before its JIT settles (issue 9); so do the SDK and mcppipe.
  for (const t of only) {
    const r = await runLoad({
      driver: t.driver,
      concurrency: 16,
      maxCalls: t.warm,
      maxMs: cfg.warmMs,
      firstId: id,
    });
    id += r.calls;
    log(`  warm-up ${t.key}: ${describeRun(r)}`);
  }
  const { runs } = await measureRounds(only, cfg, { log, firstId: id, rotate: true });
  const summary = {};
  for (const t of only) {
    const { c1, c16 } = runs[t.key];
    const cpu = cpuPerCall(c16, 't');
    summary[t.key] = {
      p50: median(c1.map((r) => r.p50)),
      p99: median(c1.map((r) => r.p99)),
      c1PerSecond: median(c1.map((r) => r.perSecond)),
      c16PerSecond: median(c16.map((r) => r.perSecond)),
      c16p50: median(c16.map((r) => r.p50)),
      c16p99: median(c16.map((r) => r.p99)),
      cpuPerCallMs: cpu.self,
      upstreamCpuPerCallMs: cpu.children,
      generatorCpuPerCallMs: median(c16.map((r) => r.generatorCpuPerCallMs)),
      rssMB: c16.at(-1)?.targets.t.rssMB,
      errors: [...c1, ...c16].reduce((n, r) => n + r.errors, 0),
      calls: [...c1, ...c16].reduce((n, r) => n + r.ok, 0),
    };
  }
  await Promise.all([sdk, fastify, single, aggregate].filter(Boolean).map((p) => p.stop()));
  return { summary, runs };
}

/** Table rows for R1/R2 from {@link overhead}'s summary. */
export function overheadRows(s) {
  const rows = [];
  const ratio = (a, b) => a / b;
  for (const [era, floorKey, mcpKey] of [
    ['2025 session', 'floor-session', 'mcppipe-session'],
    ['2026-07-28', 'floor-modern', 'mcppipe-modern'],
  ]) {
    const f = s[floorKey];
    const m = s[mcpKey];
    if (!f || !m) continue;
    rows.push(
      {
        id: 'R1',
        what: `tools/call c=1 p50 (${era})`,
        value: m.p50,
        unit: 'ms',
        baseline: f.p50,
        baselineName: 'SDK in-process',
        ratio: ratio(m.p50, f.p50),
        target: 'T3',
        limit: { max: 1.2 },
        met: ratio(m.p50, f.p50) <= 1.2,
      },
      {
        id: 'R1',
        what: `tools/call c=1 p99 (${era})`,
        value: m.p99,
        unit: 'ms',
        baseline: f.p99,
        baselineName: 'SDK in-process',
        ratio: ratio(m.p99, f.p99),
      },
      {
        id: 'R1',
        what: `tools/call c=16 throughput (${era})`,
        value: m.c16PerSecond,
        unit: 'calls/s',
        baseline: f.c16PerSecond,
        baselineName: 'SDK in-process',
        ratio: ratio(m.c16PerSecond, f.c16PerSecond),
        target: 'T2',
        limit: { min: 1.0 },
        met: ratio(m.c16PerSecond, f.c16PerSecond) >= 1.0,
      },
      {
        id: 'R1',
        what: `mcppipe CPU per call, c=16, upstream excluded (${era})`,
        value: m.cpuPerCallMs,
        unit: 'ms',
        baseline: f.cpuPerCallMs,
        baselineName: 'SDK in-process CPU/call',
        ratio: ratio(m.cpuPerCallMs, f.cpuPerCallMs),
        target: 'T1',
        limit: { maxValue: 0.25 },
        met: m.cpuPerCallMs <= 0.25,
      },
      {
        id: 'R1',
        what: `upstream (server-everything) CPU per call (${era})`,
        value: m.upstreamCpuPerCallMs,
        unit: 'ms',
      },
    );
  }
  const a = s['mcppipe-aggregate'];
  const f = s['floor-session'];
  if (a && f) {
    rows.push(
      {
        id: 'R1',
        what: 'aggregate mode everything__echo c=16 throughput (2025 session)',
        value: a.c16PerSecond,
        unit: 'calls/s',
        baseline: f.c16PerSecond,
        baselineName: 'SDK in-process',
        ratio: a.c16PerSecond / f.c16PerSecond,
      },
      {
        id: 'R1',
        what: 'aggregate mode CPU per call, c=16, upstream excluded',
        value: a.cpuPerCallMs,
        unit: 'ms',
        baseline: f.cpuPerCallMs,
        baselineName: 'SDK in-process CPU/call',
        ratio: a.cpuPerCallMs / f.cpuPerCallMs,
      },
    );
  }
  const fy = s.fastify;
  const m = s['mcppipe-session'];
  if (fy && m) {
    rows.push(
      {
        id: 'R2',
        what: 'tools/call c=1 p50 vs Fastify JSON echo',
        value: m.p50,
        unit: 'ms',
        baseline: fy.p50,
        baselineName: 'Fastify echo',
        ratio: m.p50 / fy.p50,
      },
      {
        id: 'R2',
        what: 'tools/call c=16 throughput vs Fastify JSON echo',
        value: m.c16PerSecond,
        unit: 'calls/s',
        baseline: fy.c16PerSecond,
        baselineName: 'Fastify echo',
        ratio: m.c16PerSecond / fy.c16PerSecond,
      },
      { id: 'R2', what: 'Fastify echo CPU per request, c=16', value: fy.cpuPerCallMs, unit: 'ms' },
    );
  }
  return rows;
}
