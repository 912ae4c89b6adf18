// R10 (issue 19 item 4): the cost of capturing exchanges at the relay.
//  - relay CPU per `tools/call` through a tunnel with capture on vs off (two gateways with `--tunnel-zone`, the
//    same tunnel on each; `MCPPIPE_CAPTURE=off` is the baseline): ≤ 1.05×;
//  - the same with ten dashboards streaming Live (`GET /api/tunnels/:id/exchanges/stream`, read to the end): ≤ 1.10×;
//  - the Tools tab's stats query over 1,000,000 recorded calls (50 tools, spread over 24 h): ≤ 50 ms.
// Blocks of a fresh relay pair each (see `capture`), warmed, then two interleaved rounds (on/off, then off/on) of each
// phase; each ratio is the median of all rounds' ratios (CPU per call of one round's two back-to-back runs), the CPU
// values the medians of the rounds'.
// The tunnel's CLI side runs in this process (`connectTunnel` with an in-process handler that answers at once), so
// the relay's CPU is the measured part. Self-contained: it shares nothing with the tunnel scenarios (R7/R8) yet.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ToolStats } from '@mcppipe/capture';
import { connectTunnel } from '@mcppipe/tunnel';
import { drivers, echoCheck, runLoad } from '../lib/loadgen.js';
import { GATEWAY_CLI, startProcess } from '../lib/processes.js';
import { cpuPerCall, describeRun, freePort, median } from '../lib/util.js';

const TUNNEL = 'bench--bench';
const LIVE_DASHBOARDS = 10;
/** The unmeasured load before each measured run, ms. */
const LEAD_IN_MS = 400;

/** Answers every tools/call at once with `Echo: <message>` (the tunnel's CLI side, in this process). */
function echoHandler(req, res) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let id = null;
    let message = '';
    try {
      const m = JSON.parse(Buffer.concat(chunks).toString());
      id = m.id ?? null;
      message = m.params?.arguments?.message ?? '';
    } catch {
      // answered with id null
    }
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: `Echo: ${message}` }] },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}

/**
 * `MCPPIPE_BENCH_R10_REDIS=1`: each relay is a `--redis` node with a redis-server of its own (loopback, no
 * persistence; both sides alike, so the ratio is the capture's cost on a Redis node, its shared ring included).
 */
async function startRedisFor(env) {
  if (process.env.MCPPIPE_BENCH_R10_REDIS !== '1') return undefined;
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((r) => {
      const s = connect({ host: '127.0.0.1', port }, () => (s.destroy(), r(true)));
      s.on('error', () => r(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  env.MCPPIPE_REDIS_URL = `redis://127.0.0.1:${port}`;
  env.MCPPIPE_NODE_SECRET = randomBytes(32).toString('hex');
  env.MCPPIPE_NODE_PORT = String(await freePort());
  return child;
}

async function startRelay(label, env, nodeArgs = []) {
  const work = mkdtempSync(join(tmpdir(), `mcppipe-bench-r10-${label}-`));
  const dataDir = join(work, 'data');
  env = { ...env };
  const redis = await startRedisFor(env);
  const run = (args, input) =>
    execFileSync(process.execPath, [GATEWAY_CLI, ...args, '--data-dir', dataDir], {
      input,
      stdio: ['pipe', 'pipe', 'ignore'],
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, ...env },
    });
  run(['accounts', 'add', 'bench', '--password-stdin'], 'bench relay passphrase');
  const key = run(['keys', 'create', '--account', 'bench', '--name', 'bench']).trim();
  const config = join(work, 'mcp.json');
  // the relay is what is measured: one configured server that never answers (its retries back off to minutes)
  writeFileSync(config, JSON.stringify({ mcpServers: { idle: { url: 'http://127.0.0.1:9/mcp' } } }));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
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
      base,
      '--port',
      String(port),
    ].concat(['--tunnel-zone', 'bench.test', '--log-level', 'info', '--rate-limit', '100000000']),
    {
      ready: /servers started/,
      timeoutMs: 90_000,
      env: { MCPPIPE_ADMIN_PASSWORD: 'bench owner passphrase', ...env },
    },
  );
  const tunnel = connectTunnel({
    relayUrl: `${base}/tunnel/connect`,
    apiKey: key,
    subdomain: 'bench',
    metadata: { auth: 'api-key' },
    handler: echoHandler,
  });
  await tunnel.connected();
  return { gw, tunnel, key, port, base, redis, work };
}

const relayCpu = (r) => `, relay CPU ${cpuPerCall([r], 't').self.toFixed(3)} ms/call`;

/** The Live dashboards' reader: opens `n` streams and reads each to the end; prints the byte count on SIGTERM. */
const LIVE_READER = `
const http = require('node:http');
const [url, key, n] = process.argv.slice(1);
let bytes = 0;
for (let i = 0; i < Number(n); i++)
  http.get(url, { headers: { authorization: 'Bearer ' + key } }, (res) => res.on('data', (c) => (bytes += c.length)))
    .on('error', () => {});
process.on('SIGTERM', () => { process.stdout.write(String(bytes)); process.exit(0); });
process.stdout.write('ready\\n');
`;

/**
 * Opens `n` Live streams on a relay from a separate process (so reading them does not slow this process, which is
 * the load generator and the tunnel's CLI side); each reads everything to the end.
 */
async function openLive(relay, n) {
  const child = spawn(
    process.execPath,
    ['-e', LIVE_READER, `${relay.base}/api/tunnels/${TUNNEL}/exchanges/stream`, relay.key, String(n)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.on('data', () => out.includes('ready') && resolve());
  });
  let bytes = 0;
  return {
    bytes: () => bytes,
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      bytes = Number(out.slice(out.indexOf('\n') + 1)) || 0;
    },
  };
}

/** Median time of the 24 h stats query over `count` calls recorded by ToolStats (the capture's own aggregation). */
function statsQuery(count, queries) {
  const stats = new ToolStats();
  const now = Date.now();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const tool = i % 50;
    stats.record({
      name: `up${tool % 5}__tool${tool}`,
      upstream: `up${tool % 5}`,
      at: now - 86_400_000 + Math.floor((i / count) * 86_400_000), // in time order, as calls arrive
      durationMs: 0.5 + ((i * 7919) % 2000) / 10,
      error: i % 97 === 0,
    });
  }
  const recordMs = performance.now() - t0;
  const times = [];
  let rows = [];
  for (let q = 0; q < queries; q++) {
    const s = performance.now();
    rows = stats.query(86_400_000, now);
    times.push(performance.now() - s);
  }
  return {
    queryMs: median(times),
    recordNsPerCall: (recordMs * 1e6) / count,
    tools: rows.length,
    calls: rows.reduce((a, r) => a + r.calls, 0),
  };
}

/** Stops a relay pair of one block. */
async function stopPair(pair) {
  await Promise.allSettled(pair.map((r) => r.tunnel.close()));
  await Promise.allSettled(pair.map((r) => r.gw.stop()));
  for (const r of pair) {
    r.redis?.kill();
    rmSync(r.work, { recursive: true, force: true });
  }
}

/**
 * The relays' own bias: two relay processes started alike differ by a few per cent in CPU per call for as long as
 * they live (an A/A run, both sides capturing, read 1.045× and 1.049× as the medians of 12 rounds on a quiet machine,
 * single rounds 0.81–1.19×). So each block starts a fresh pair (the two started at once), warms both, and runs its
 * interleaved rounds on that pair; the ratio is the median over all blocks' rounds, which averages the pairs' biases
 * out as blocks are added, instead of carrying one pair's bias into every round.
 *
 * @param {object} cfg see run.js (`rounds`, `c16Calls`, `quick`, `warmBaseline`, `warmMs`); R10 runs last 2 s
 * @param {(line: string) => void} log
 * @param {{ nodeArgs?: (label: string) => string[] }} [options] e.g. `--cpu-prof` per relay
 */
export async function capture(cfg, log, options = {}) {
  // MCPPIPE_BENCH_R10_CONTROL=1: the baseline relay captures too (an A/A run: the rows then show the method's bias)
  const control = process.env.MCPPIPE_BENCH_R10_CONTROL === '1';
  const offEnv = control ? {} : { MCPPIPE_CAPTURE: 'off' };
  // MCPPIPE_BENCH_R10_SIMULTANEOUS=1: both sides of a round run at the same time; default: one after the other
  const simultaneous = process.env.MCPPIPE_BENCH_R10_SIMULTANEOUS === '1';
  // MCPPIPE_BENCH_R10_RATE=N: both sides get the same offered load, N calls/s (below saturation), instead of a
  // closed loop; at saturation a side that costs more per call also answers fewer calls per second, and a relay that
  // answers fewer coalesces less per WebSocket message and per turn, which raises its cost per call again
  const rate = Number(process.env.MCPPIPE_BENCH_R10_RATE) || undefined;
  const blocks = cfg.quick ? 1 : Math.max(2 * cfg.rounds, 6);
  const perBlock = cfg.quick ? 1 : 2; // rounds of each phase per block: on/off then off/on, so the order cancels
  const runMs = cfg.quick ? cfg.c16Ms : 2_000;
  const driver = (r) =>
    drivers.legacyStateless({
      port: r.port,
      path: `/t/${TUNNEL}/mcp`,
      request: { method: 'tools/call', params: { name: 'echo', arguments: { message: 'bench' } } },
      check: echoCheck('bench'),
      headers: { authorization: `Bearer ${r.key}` },
    });
  let id = 1;
  const load = async (relay, calls, ms, idOffset = 0, perSecond = undefined) => {
    // a lead-in, not measured: every measured run starts on a relay that is busy already. Without it the side that
    // waited longest before its run (the second relay warmed waits through the other's runs) paid its idle time back
    // in the run (V8 shrinks an idle heap, then grows it again under load): an A/A run read 1.04-1.05x.
    const lead = await runLoad({
      driver: driver(relay),
      concurrency: 16,
      maxCalls: calls,
      maxMs: LEAD_IN_MS,
      firstId: id + idOffset,
    });
    id += lead.calls;
    const r = await runLoad({
      perSecond,
      driver: driver(relay),
      concurrency: 16,
      maxCalls: calls,
      maxMs: ms,
      watch: { t: relay.gw.pid },
      firstId: id + idOffset,
    });
    id += r.calls;
    return r;
  };
  const runs = { on: [], off: [], live: [], liveOff: [] };
  let liveBytes = 0;
  for (let b = 0; b < blocks; b++) {
    const [on, off] = await Promise.all([
      startRelay('on', {}, options.nodeArgs?.('on')),
      startRelay('off', offEnv, options.nodeArgs?.('off')),
    ]);
    try {
      const targets = { on, off };
      for (const key of ['on', 'off']) await load(targets[key], cfg.warmBaseline, cfg.warmMs); // JIT warm-up
      const round = async (n, label) => {
        const order = n % 2 ? ['off', 'on'] : ['on', 'off'];
        const rs = simultaneous
          ? await Promise.all(
              order.map((k, i) => load(targets[k], cfg.c16Calls, runMs, i * 10_000_000, rate)),
            )
          : [
              await load(targets[order[0]], cfg.c16Calls, runMs, 0, rate),
              await load(targets[order[1]], cfg.c16Calls, runMs, 0, rate),
            ];
        const at = `block ${b + 1}/${blocks} round ${n + 1}`;
        order.forEach((k, i) => log(`  R10 ${at} ${label(k)}: c=16 ${describeRun(rs[i])}${relayCpu(rs[i])}`));
        return Object.fromEntries(order.map((k, i) => [k, rs[i]]));
      };
      for (let n = 0; n < perBlock; n++) {
        const r = await round(n, (k) => `capture ${k}`);
        runs.on.push(r.on);
        runs.off.push(r.off);
      }
      const live = await openLive(on, LIVE_DASHBOARDS);
      try {
        await new Promise((r) => setTimeout(r, 500));
        // the Live path (summaries, frames, the streams' writes) is new code to this fresh relay: warm it as the
        // capture was warmed, or the first Live round of every block measures its JIT (1.09-1.46x, then 0.97-1.13x)
        await load(on, cfg.warmBaseline, cfg.warmMs);
        for (let n = 0; n < perBlock; n++) {
          const r = await round(n, (k) =>
            k === 'on' ? `capture on + ${LIVE_DASHBOARDS} Live` : 'capture off',
          );
          runs.live.push(r.on);
          runs.liveOff.push(r.off);
        }
      } finally {
        await live.close();
        liveBytes += live.bytes();
      }
    } finally {
      await stopPair([on, off]);
    }
  }
  // per round: CPU per call of each side, and their ratio (the two runs of a round on one pair, back to back); the
  // reported values are medians over all rounds of all blocks
  const cpu = (rs) => median(rs.map((r) => cpuPerCall([r], 't').self));
  const ratios = (a, b) => a.map((r, i) => cpuPerCall([r], 't').self / cpuPerCall([b[i]], 't').self);
  const stats = statsQuery(cfg.quick ? 100_000 : 1_000_000, 21);
  log(`  R10 stats: ${stats.calls} calls in ${stats.tools} tools, 24 h query ${stats.queryMs.toFixed(2)} ms`);
  const onRatios = ratios(runs.on, runs.off);
  const liveRatios = ratios(runs.live, runs.liveOff);
  log(`  R10 rounds on/off: ${onRatios.map((x) => x.toFixed(2)).join(' ')}`);
  log(`  R10 rounds Live/off: ${liveRatios.map((x) => x.toFixed(2)).join(' ')}`);
  return {
    cpuOnMs: cpu(runs.on),
    cpuOffMs: cpu(runs.off),
    cpuLiveMs: cpu(runs.live),
    cpuLiveOffMs: cpu(runs.liveOff),
    ratioOn: median(onRatios),
    ratioLive: median(liveRatios),
    blocks,
    simultaneous,
    control,
    liveBytes,
    stats,
    runs: Object.fromEntries(
      Object.entries(runs).map(([k, rs]) => [
        k,
        rs.map((r) => ({
          ok: r.ok,
          perSecond: r.perSecond,
          p50: r.p50,
          cpuMs: r.targets.t.cpuMs,
          cpuPerCallMs: cpuPerCall([r], 't').self,
        })),
      ]),
    ),
  };
}

/** The table rows of R10. */
export function captureRows(s) {
  const onRatio = s.ratioOn ?? s.cpuOnMs / s.cpuOffMs; // the median of the rounds' ratios
  const liveRatio = s.ratioLive ?? s.cpuLiveMs / s.cpuLiveOffMs;
  return [
    {
      id: 'R10',
      what: 'relay CPU per tools/call through a tunnel, capture on, c=16',
      value: s.cpuOnMs,
      unit: 'ms',
      baseline: s.cpuOffMs,
      baselineName: 'capture off',
      ratio: onRatio,
      target: 'R10',
      limit: { max: 1.05 },
      met: onRatio <= 1.05,
    },
    {
      id: 'R10',
      what: `relay CPU per tools/call, capture on + ${LIVE_DASHBOARDS} Live dashboards, c=16`,
      value: s.cpuLiveMs,
      unit: 'ms',
      baseline: s.cpuLiveOffMs,
      baselineName: 'capture off',
      ratio: liveRatio,
      target: 'R10',
      limit: { max: 1.1 },
      met: liveRatio <= 1.1,
    },
    {
      id: 'R10',
      what: `Tools stats query, 24 h, ${s.stats.calls} recorded calls, ${s.stats.tools} tools`,
      value: s.stats.queryMs,
      unit: 'ms',
      target: 'R10',
      limit: { maxValue: 50 },
      met: s.stats.queryMs <= 50,
    },
  ];
}
