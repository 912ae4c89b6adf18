// R7 and R8: the tunnel (issue 16 item 6), every process real, on 127.0.0.1 only.
//  - R7: `tools/call echo` through the relay (the gateway process with `--tunnel-zone`, an account and an API key
//    made with its own commands, tunnel auth `api-key`) + the tunnel + `mcppipe up --tunnel` (one stdio
//    server-everything upstream), against straight to the SAME `mcppipe up` on its loopback port, both eras
//    (2025 session, 2026-07-28), c=1 and c=16, interleaved rounds. The relay's CPU per call is the gateway
//    process's own CPU delta over the c=16 windows divided by the calls (its one idle stdio child excluded).
//    Run twice: as deployed (the relay on a CPU of its own, `taskset`: a hosted relay never takes CPU from the
//    machine running `mcppipe up`), which the targets are judged on, and with every process on the same cores
//    (context: what a relay on the developer's own machine costs).
//  - R8: N idle tunnels (1,000; 100 with --quick) on one relay, opened by a separate child process
//    (servers/idle-tunnels.js, `connectTunnel` ×N) so the relay's RSS is measured alone; then a call through
//    tunnel #N against a call through tunnel #1 (interleaved rounds, same relay, same `mcppipe up` behind).
// The agent reaches a tunnel by `Host: <subdomain>--<account>.<zone>:PORT` (T4), with the owner's API key as
// Bearer (the relay strips it before the tunnel, T5).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { drivers, echoCheck, runLoad } from '../lib/loadgen.js';
import { descendants, pinCpus, rssBytes } from '../lib/proc.js';
import { measureRounds } from '../lib/rounds.js';
import {
  GATEWAY_CLI,
  LIST_FIXTURE,
  SERVERS_DIR,
  nodeCommand,
  referenceServerPath,
  startMcppipe,
  startProcess,
} from '../lib/processes.js';
import { cpuPerCall, describeRun, freePort, median, sleep } from '../lib/util.js';

const ZONE = 'bench.test';
const ACCOUNT = 'bench';
const MESSAGE = 'bench';
const MB = 2 ** 20;
const echo = { method: 'tools/call', params: { name: 'echo', arguments: { message: MESSAGE } } };

/** Runs one `mcppipe-gateway` management command (accounts, keys) on a data dir; returns its stdout. */
function gatewayCommand(args, input = '') {
  return execFileSync(process.execPath, [GATEWAY_CLI, ...args], {
    input,
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * The relay: the gateway process with `--tunnel-zone`, one idle stdio server (its CPU is a child's, so the
 * gateway's own CPU is the relay's), rate limits raised so they never answer 429, logs at `info` (the default), and an
 * account with one API key made by its own commands.
 *
 * @returns `{ gw, port, key, work }` or `{ pending }`
 */
async function startRelay(log, { nodeArgs = [] } = {}) {
  if (!existsSync(GATEWAY_CLI)) return { pending: `${GATEWAY_CLI} is not built` };
  const work = mkdtempSync(join(tmpdir(), 'mcppipe-bench-tunnel-'));
  const dataDir = join(work, 'data');
  const config = join(work, 'mcp.json');
  // the gateway needs one server: an idle stdio fixture (a child, so its CPU is not counted as the relay's)
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { idle: { command: process.execPath, args: [LIST_FIXTURE, '--tools', '1'] } },
    }),
  );
  gatewayCommand(
    ['accounts', 'add', ACCOUNT, '--password-stdin', '--data-dir', dataDir],
    'bench relay owner',
  );
  const key = gatewayCommand([
    'keys',
    'create',
    '--account',
    ACCOUNT,
    '--name',
    'bench',
    '--data-dir',
    dataDir,
  ])
    .trim()
    .split('\n')
    .at(-1);
  const port = await freePort();
  const gw = await startProcess(
    process.execPath,
    [
      ...nodeArgs,
      GATEWAY_CLI,
      '--config',
      config,
      '--data-dir',
      dataDir,
      '--public-url',
      `http://127.0.0.1:${port}`,
      '--port',
      String(port),
      '--tunnel-zone',
      ZONE,
      '--log-level',
      'info',
      '--rate-limit',
      '100000000',
    ],
    { ready: /servers started/, timeoutMs: 90_000, env: { MCPPIPE_ADMIN_PASSWORD: 'bench relay admin' } },
  );
  log(`  relay: gateway pid ${gw.pid} on port ${port}, zone ${ZONE}`);
  return { gw, port, key, work };
}

/** The public `Host` of a tunnel (T4) and the agent's credentials for `api-key` auth. */
const tunnelHeaders = (subdomain, port, key) => ({
  host: `${subdomain}--${ACCOUNT}.${ZONE}:${port}`,
  authorization: `Bearer ${key}`,
});

/** Waits (bounded) until a call through the relay answers right: the tunnel is connected end to end. */
async function waitForTunnel(port, headers, maxMs = 60_000) {
  const driver = drivers.modern({ port, request: echo, check: echoCheck(MESSAGE), headers });
  const deadline = Date.now() + maxMs;
  let last;
  while (Date.now() < deadline) {
    const r = await runLoad({ driver, concurrency: 1, maxCalls: 1, maxMs: 5_000 });
    if (r.ok === 1) return;
    last = r.firstError;
    await sleep(250);
  }
  throw new Error(`no call through the tunnel answered within ${maxMs} ms: ${last}`);
}

/** Median RSS of a process over five samples 100 ms apart, in MB. */
async function settledRssMB(pid) {
  const samples = [];
  for (let i = 0; i < 5; i++) {
    samples.push((rssBytes(pid) ?? NaN) / MB);
    await sleep(100);
  }
  return median(samples);
}

function summarize(runs, key, watch = []) {
  const { c1, c16 } = runs[key];
  const out = {
    p50: median(c1.map((r) => r.p50)),
    p99: median(c1.map((r) => r.p99)),
    c1PerSecond: median(c1.map((r) => r.perSecond)),
    c16PerSecond: median(c16.map((r) => r.perSecond)),
    c16p50: median(c16.map((r) => r.p50)),
    cpuPerCallMs: cpuPerCall(c16, 't').self,
    c1CpuPerCallMs: cpuPerCall(c1, 't').self,
    errors: [...c1, ...c16].reduce((n, r) => n + r.errors, 0),
    firstError: [...c1, ...c16].find((r) => r.firstError)?.firstError,
    calls: [...c1, ...c16].reduce((n, r) => n + r.ok, 0),
  };
  for (const label of watch) out[`${label}CpuPerCallMs`] = cpuPerCall(c16, label).self;
  return out;
}

/**
 * R7: through relay + tunnel + `mcppipe up` against straight to the same `mcppipe up`.
 *
 * @param {object} cfg see run.js
 * @param {(line: string) => void} log
 * @param {{ nodeArgs?: string[], cliNodeArgs?: string[], only?: string[], split?: boolean }} [options] node flags
 *   for the gateway and for `mcppipe up` (profiling), a subset of the targets, and `split`: the relay pinned to
 *   CPU 0 and everything else (`mcppipe up`, its upstream, this process: the load generator) to the other CPUs
 * @returns {Promise<{ summary } | { pending: string }>} `pending` when the relay is not built or `split` cannot pin
 */
export async function tunnelCalls(cfg, log, options = {}) {
  const relay = await startRelay(log, { nodeArgs: options.nodeArgs });
  if (relay.pending) return { pending: relay.pending };
  const { gw, port, key, work } = relay;
  let mcppipe;
  let unpin = () => {};
  try {
    mcppipe = await startMcppipe(
      [
        '--stdio',
        `everything=${nodeCommand(referenceServerPath('everything'))}`,
        '--tunnel',
        `http://127.0.0.1:${port}`,
        '--subdomain',
        'r7',
        '--tunnel-auth',
        'api-key',
      ],
      { env: { MCPPIPE_API_KEY: key }, nodeArgs: options.cliNodeArgs ?? [] },
    );
    const headers = tunnelHeaders('r7', port, key);
    await waitForTunnel(port, headers);
    if (options.split) {
      // as deployed: the relay on a host of its own (CPU 0); mcppipe up, its upstream and the agent on the rest
      const n = cpus().length;
      if (n < 2) return { pending: 'one CPU: the relay cannot have one of its own' };
      const rest = n === 2 ? '1' : `1-${n - 1}`;
      unpin = () => pinCpus([process.pid], `0-${n - 1}`); // set first: a pin that failed halfway is undone too
      const user = [mcppipe.pid, ...descendants(mcppipe.pid), process.pid];
      if (!pinCpus([gw.pid], '0') || !pinCpus(user, rest))
        return { pending: 'taskset could not pin the processes' };
      log(`  topology: the relay on CPU 0; mcppipe up, its upstream and the load generator on CPU ${rest}`);
    }
    const check = echoCheck(MESSAGE);
    const direct = { port: mcppipe.port, request: echo, check };
    const relayed = { port, request: echo, check, headers };
    const all = [
      {
        key: 'direct-session',
        pid: mcppipe.pid,
        driver: drivers.legacySession(direct),
        warm: cfg.warmUpstream,
      },
      { key: 'direct-modern', pid: mcppipe.pid, driver: drivers.modern(direct), warm: cfg.warmBaseline },
      {
        key: 'tunnel-session',
        pid: gw.pid,
        watch: { cli: mcppipe.pid },
        driver: drivers.legacySession(relayed),
        warm: cfg.warmBaseline,
      },
      {
        key: 'tunnel-modern',
        pid: gw.pid,
        watch: { cli: mcppipe.pid },
        driver: drivers.modern(relayed),
        warm: cfg.warmBaseline,
      },
    ];
    const targets = options.only ? all.filter((t) => options.only.includes(t.key)) : all;
    let id = 1;
    for (const t of targets) {
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
    const { runs } = await measureRounds(targets, cfg, { log, firstId: id, rotate: true });
    const summary = {};
    for (const t of targets) summary[t.key] = summarize(runs, t.key, t.watch ? Object.keys(t.watch) : []);
    summary.relayRssMB = (rssBytes(gw.pid) ?? NaN) / MB;
    return { summary };
  } finally {
    unpin();
    await Promise.all([mcppipe?.stop(), gw.stop()]);
    rmSync(work, { recursive: true, force: true });
  }
}

/** `idle0001`: tunnel #n's subdomain, as servers/idle-tunnels.js names them. */
const idleSubdomain = (n) => `idle${String(n).padStart(4, '0')}`;

/**
 * R8: N idle tunnels on one relay; the relay's RSS, and a call through tunnel #N against tunnel #1.
 *
 * @param {object} cfg see run.js (`idleTunnels`)
 * @param {(line: string) => void} log
 */
export async function idleTunnels(cfg, log) {
  const relay = await startRelay(log);
  if (relay.pending) return { pending: relay.pending };
  const { gw, port, key, work } = relay;
  const count = cfg.idleTunnels;
  let mcppipe;
  let clients;
  try {
    mcppipe = await startMcppipe(['--stdio', `everything=${nodeCommand(referenceServerPath('everything'))}`]);
    await sleep(1_000);
    const rssBefore = await settledRssMB(gw.pid);
    clients = await startProcess(
      process.execPath,
      [
        join(SERVERS_DIR, 'idle-tunnels.js'),
        '--relay',
        `http://127.0.0.1:${port}/tunnel/connect`,
        '--count',
        String(count),
        '--port',
        String(mcppipe.port),
        '--auth',
        'api-key',
      ],
      { ready: /tunnels connected (\d+) in (\d+) ms/, timeoutMs: 150_000, env: { MCPPIPE_API_KEY: key } },
    );
    const openMs = Number(clients.match[2]);
    log(`  ${count} tunnels connected in ${openMs} ms`);
    const first = tunnelHeaders(idleSubdomain(1), port, key);
    const last = tunnelHeaders(idleSubdomain(count), port, key);
    await waitForTunnel(port, first);
    await waitForTunnel(port, last);
    await sleep(cfg.memSettleMs);
    const rssIdle = await settledRssMB(gw.pid);
    log(
      `  relay RSS: ${rssBefore.toFixed(1)} MB before, ${rssIdle.toFixed(1)} MB with ${count} idle tunnels`,
    );
    const check = echoCheck(MESSAGE);
    const targets = [
      {
        key: 'tunnel-first',
        pid: gw.pid,
        driver: drivers.modern({ port, request: echo, check, headers: first }),
      },
      {
        key: 'tunnel-last',
        pid: gw.pid,
        driver: drivers.modern({ port, request: echo, check, headers: last }),
      },
    ];
    let id = 1;
    for (const t of targets) {
      const r = await runLoad({
        driver: t.driver,
        concurrency: 16,
        maxCalls: cfg.warmUpstream,
        maxMs: cfg.warmMs,
        firstId: id,
      });
      id += r.calls;
      log(`  warm-up ${t.key}: ${describeRun(r)}`);
    }
    const { runs } = await measureRounds(targets, cfg, { log, firstId: id, rotate: true });
    const rssAfterCalls = await settledRssMB(gw.pid);
    return {
      count,
      openMs,
      rssBeforeMB: rssBefore,
      rssIdleMB: rssIdle,
      rssAfterCallsMB: rssAfterCalls,
      first: summarize(runs, 'tunnel-first'),
      last: summarize(runs, 'tunnel-last'),
    };
  } finally {
    await clients?.stop();
    await Promise.all([mcppipe?.stop(), gw.stop()]);
    rmSync(work, { recursive: true, force: true });
  }
}

const pending = (id, reason) => [
  { id, what: `tunnel rows: pending (${reason})`, value: NaN, unit: '', target: id === 'R7' ? 'T8' : 'T11' },
];

/**
 * Table rows for R7: the targets on the deployed topology (`split`), the same rows as context for every process on
 * the same cores (`shared`); the targets fall back to `shared` when `split` could not be measured.
 *
 * @param {{ split?: object, shared?: object } | { pending: string }} s from {@link tunnelCalls} twice
 */
export function tunnelCallRows(s) {
  if (s.pending) return pending('R7', s.pending);
  const judged = s.split && !s.split.pending ? s.split : s.shared;
  if (!judged || judged.pending) return pending('R7', judged?.pending ?? 'not run');
  const topology = judged === s.split ? 'relay on its own CPU' : 'all on the same CPUs';
  const rows = rowsOf(judged.summary, topology, true);
  if (judged === s.split && s.shared && !s.shared.pending)
    rows.push(...rowsOf(s.shared.summary, 'context: all on the same CPUs', false));
  return rows;
}

function rowsOf(g, topology, judged) {
  const rows = [];
  const target = (id, limit, met) => (judged ? { target: id, limit, met } : {});
  for (const [era, directKey, tunnelKey] of [
    ['2025 session', 'direct-session', 'tunnel-session'],
    ['2026-07-28', 'direct-modern', 'tunnel-modern'],
  ]) {
    const d = g[directKey];
    const t = g[tunnelKey];
    if (!d || !t) continue;
    const throughput = t.c16PerSecond / d.c16PerSecond;
    const added = t.p50 - d.p50;
    const base = { baselineName: 'straight to mcppipe up' };
    const where = `${era}, ${topology}`;
    rows.push(
      {
        id: 'R7',
        what: `tools/call through relay + tunnel, c=16 throughput (${where})`,
        value: t.c16PerSecond,
        unit: 'calls/s',
        ...base,
        baseline: d.c16PerSecond,
        ratio: throughput,
        ...target('T8', { min: 0.7 }, throughput >= 0.7),
      },
      {
        id: 'R7',
        what: `added p50 at c=1 through relay + tunnel (${where})`,
        value: added,
        unit: 'ms',
        ...base,
        baseline: d.p50,
        ratio: NaN,
        extra: `tunnel p50 ${t.p50.toFixed(3)} ms`,
        ...target('T9', { maxValue: 0.5 }, added <= 0.5),
      },
      {
        id: 'R7',
        what: `relay (gateway process) CPU per call, c=16 (${where})`,
        value: t.cpuPerCallMs,
        unit: 'ms',
        ...base,
        baseline: d.cpuPerCallMs,
        baselineName: 'mcppipe up CPU per call, direct',
        ratio: t.cpuPerCallMs / d.cpuPerCallMs,
        ...target('T10', { maxValue: 0.15 }, t.cpuPerCallMs <= 0.15),
      },
    );
    if (judged)
      rows.push({
        id: 'R7',
        what: `context: mcppipe up CPU per call through the tunnel, c=16 (${where})`,
        value: t.cliCpuPerCallMs,
        unit: 'ms',
        ...base,
        baseline: d.cpuPerCallMs,
        baselineName: 'mcppipe up CPU per call, direct',
        ratio: t.cliCpuPerCallMs / d.cpuPerCallMs,
      });
  }
  return rows;
}

/** Table rows for R8 from {@link idleTunnels}. */
export function idleTunnelRows(s) {
  if (s.pending) return pending('R8', s.pending);
  const ratio = s.last.p50 / s.first.p50;
  return [
    {
      id: 'R8',
      what: `relay RSS with ${s.count} idle tunnels`,
      value: s.rssIdleMB,
      unit: 'MB',
      baseline: s.rssBeforeMB,
      baselineName: 'relay with no tunnel',
      ratio: s.rssIdleMB / s.rssBeforeMB,
      extra: `${(((s.rssIdleMB - s.rssBeforeMB) * 1024) / s.count).toFixed(0)} KB per tunnel`,
      target: 'T11',
      limit: { maxValue: 300 },
      met: s.rssIdleMB <= 300,
    },
    {
      id: 'R8',
      what: `tools/call c=1 p50 through tunnel #${s.count}`,
      value: s.last.p50,
      unit: 'ms',
      baseline: s.first.p50,
      baselineName: 'through tunnel #1',
      ratio,
      target: 'T12',
      limit: { max: 1.2 },
      met: ratio <= 1.2,
    },
    {
      id: 'R8',
      what: `context: tools/call c=16 throughput through tunnel #${s.count}`,
      value: s.last.c16PerSecond,
      unit: 'calls/s',
      baseline: s.first.c16PerSecond,
      baselineName: 'through tunnel #1',
      ratio: s.last.c16PerSecond / s.first.c16PerSecond,
    },
    {
      id: 'R8',
      what: `context: time to connect ${s.count} tunnels (50 in flight)`,
      value: s.openMs,
      unit: 'ms',
    },
  ];
}
