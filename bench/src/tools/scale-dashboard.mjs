// A one-off investigation, not a run.js scenario: the dashboard API of a tunnel on the node that does not hold it
// (issue 20; docs/scale.md "The dashboard on any node"). Kept to rerun after a change to the node link or Live.
//
//   node bench/src/tools/scale-dashboard.mjs [--rounds 5]
//
// Needs the workspace built (`npx -y pnpm@12.4.2 build`) and redis-server installed. Prints a JSON summary on stdout,
// a line per round on stderr. All on 127.0.0.1: one redis-server (no persistence), gateway nodes A and B sharing it,
// the SDK echo server behind a real `connectTunnel` client held by node A. Alternating rounds (A then B, then B then
// A, …), each a median over its calls; the summary gives the median of the round medians and of the per-round
// ratios B/A:
//  - `POST …/exchanges/<id>/replay` asked of A (replayed there) vs of B (a node call to A, which replays);
//  - `GET …/stats?window=1h` on A (local) vs B (a node call to A);
//  - Live: a Live stream open on A and one on B; a call through A; ms from its answer until each stream has its frame
//    (A: the capture's subscription; B: the shared ring's 100 ms batches read every 500 ms).
// Bounded: counts and time per round.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectTunnel, forwardToLoopback } from '@mcppipe/tunnel';
import { GATEWAY_CLI, startBaseline, startProcess, stopAll } from '../lib/processes.js';
import { freePort, median, sleep } from '../lib/util.js';

const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const REPLAYS = 20; // per node per round
const STATS = 50; // per node per round
const LIVE = 8; // calls per round, each seen by both streams
const ROUND_MS = 15_000; // per measure per round, whatever the count
const TUNNEL = 'bench--bench';
const log = (line) => process.stderr.write(`${line}\n`);

async function timed(count, fn) {
  const out = [];
  const until = performance.now() + ROUND_MS;
  for (let i = 0; i < count && performance.now() < until; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'mcppipe-bench-dash-'));
const load = [loadavg()[0]];
const streams = [];
let tunnel;
try {
  const redisPort = await freePort();
  await startProcess(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { ready: /Ready to accept connections/ },
  );
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const upstream = await startBaseline('sdk-echo.js');
  writeFileSync(
    join(dir, 'mcp.json'),
    JSON.stringify({ mcpServers: { echo: { url: `http://127.0.0.1:${upstream.port}/modern` } } }),
  );
  const where = ['--data-dir', join(dir, 'cmd'), '--redis', redisUrl];
  const cmd = (args, input = '') =>
    execFileSync(process.execPath, [GATEWAY_CLI, ...args, ...where], {
      input,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'ignore'],
    });
  cmd(['accounts', 'add', 'bench', '--password-stdin'], 'bench account passphrase');
  const key = cmd(['keys', 'create', '--account', 'bench']).trim();
  const secret = randomBytes(32).toString('hex');
  const node = async (name) => {
    const port = await freePort();
    const args = ['--config', join(dir, 'mcp.json'), '--data-dir', join(dir, name), '--port', String(port)];
    const env = {
      MCPPIPE_ADMIN_PASSWORD: 'bench owner passphrase',
      MCPPIPE_REDIS_URL: redisUrl,
      MCPPIPE_TUNNEL_ZONE: 'tunnel.test',
      MCPPIPE_NODE_SECRET: secret,
      MCPPIPE_NODE_PORT: String(await freePort()),
      RATE_LIMIT_PER_MINUTE: '999999',
    };
    await startProcess(process.execPath, [GATEWAY_CLI, ...args], { ready: /gateway listening/, env });
    return `http://127.0.0.1:${port}`;
  };
  const [a, b] = await Promise.all([node('a'), node('b')]);
  const loopback = forwardToLoopback({ port: upstream.port });
  tunnel = connectTunnel({
    relayUrl: `${a}/tunnel/connect`,
    apiKey: key,
    subdomain: 'bench',
    metadata: { auth: 'none' },
    handler: (req, res) => {
      if (req.url === '/mcp') req.url = '/modern'; // a replay goes to the tunnel's /mcp, as its calls here do
      loopback(req, res);
    },
  });
  await tunnel.connected();
  const auth = { authorization: `Bearer ${key}` };
  let n = 0;
  const call = async () => {
    const res = await fetch(`${a}/t/${TUNNEL}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++n,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: `call ${n}` } },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`call: ${res.status}`);
  };
  const api =
    (url, path, init = {}) =>
    async () => {
      const res = await fetch(`${url}${path}`, {
        ...init,
        headers: { ...auth, 'content-type': 'application/json' },
        signal: AbortSignal.timeout(70_000),
      });
      const body = await res.json();
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      return body;
    };
  await call();
  await sleep(300); // the shared ring's batch
  const { exchanges } = await api(a, `/api/tunnels/${TUNNEL}/exchanges?limit=1`)();
  const replayPath = `/api/tunnels/${TUNNEL}/exchanges/${exchanges[0].id}/replay`;
  const replay = (url) => api(url, replayPath, { method: 'POST', body: '{}' });
  const stats = (url) => api(url, `/api/tunnels/${TUNNEL}/stats?window=1h`);

  /** A Live stream: `next()` resolves at the next exchange frame, with the time it arrived. */
  const openLive = async (url) => {
    const ac = new AbortController();
    const res = await fetch(`${url}/api/tunnels/${TUNNEL}/exchanges/stream`, {
      headers: auth,
      signal: ac.signal,
    });
    if (res.status !== 200) throw new Error(`Live on ${url}: ${res.status}`);
    const waiting = [];
    const arrived = [];
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body) {
          const frames = (decoder.decode(chunk, { stream: true }).match(/event: exchange/g) ?? []).length;
          for (let i = 0; i < frames; i++) {
            const w = waiting.shift();
            if (w) w(performance.now());
            else arrived.push(performance.now());
          }
        }
      } catch {
        // aborted at the end
      }
    })();
    streams.push(ac);
    return {
      next: () => (arrived.length ? Promise.resolve(arrived.shift()) : new Promise((r) => waiting.push(r))),
      drain: () => arrived.splice(0),
    };
  };
  const liveA = await openLive(a);
  const liveB = await openLive(b);
  await sleep(1_000); // B's first ring read marks what is there
  await timed(5, replay(a)); // warm-up
  await timed(5, replay(b));
  await timed(20, stats(a));
  await timed(20, stats(b));
  await sleep(1_500);
  liveA.drain();
  liveB.drain();

  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? ['b', 'a'] : ['a', 'b'];
    const row = {};
    for (const x of order) {
      const url = x === 'a' ? a : b;
      row[`replay_${x}`] = median(await timed(REPLAYS, replay(url)));
      row[`stats_${x}`] = median(await timed(STATS, stats(url)));
    }
    await sleep(1_500); // the replays' frames reach both streams
    liveA.drain();
    liveB.drain();
    const la = [];
    const lb = [];
    const until = performance.now() + ROUND_MS;
    for (let i = 0; i < LIVE && performance.now() < until; i++) {
      const seenA = liveA.next();
      const seenB = liveB.next();
      await call();
      const done = performance.now();
      const timeout = sleep(5_000).then(() => Number.NaN);
      la.push((await Promise.race([seenA, timeout])) - done);
      lb.push((await Promise.race([seenB, timeout])) - done);
      await sleep(200);
    }
    row.live_a = median(la.filter((x) => !Number.isNaN(x)));
    row.live_b = median(lb.filter((x) => !Number.isNaN(x)));
    row.live_missed = la.concat(lb).filter((x) => Number.isNaN(x)).length;
    rounds.push(row);
    log(
      `round ${r + 1}: replay A ${row.replay_a.toFixed(1)} ms, B ${row.replay_b.toFixed(1)} ms; ` +
        `stats A ${row.stats_a.toFixed(2)} ms, B ${row.stats_b.toFixed(2)} ms; ` +
        `Live A ${row.live_a.toFixed(0)} ms, B ${row.live_b.toFixed(0)} ms (${row.live_missed} missed)`,
    );
  }
  load.push(loadavg()[0]);
  const m = (k) => median(rounds.map((r) => r[k]));
  const ratio = (k) => median(rounds.map((r) => r[`${k}_b`] / r[`${k}_a`]));
  const spread = (k) => {
    const xs = rounds.map((r) => r[`${k}_b`] / r[`${k}_a`]);
    return [Math.min(...xs), Math.max(...xs)];
  };
  const result = {
    rounds: ROUNDS,
    loadavg1: load,
    replayMs: {
      onHolder: m('replay_a'),
      onOther: m('replay_b'),
      ratio: ratio('replay'),
      spread: spread('replay'),
    },
    statsMs: {
      onHolder: m('stats_a'),
      onOther: m('stats_b'),
      ratio: ratio('stats'),
      spread: spread('stats'),
    },
    liveMs: {
      onHolder: m('live_a'),
      onOther: m('live_b'),
      missed: rounds.reduce((s, r) => s + r.live_missed, 0),
    },
    perRound: rounds,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  for (const ac of streams) ac.abort();
  await tunnel?.close().catch(() => {});
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
