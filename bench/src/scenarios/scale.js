// R9: many gateway nodes over one Redis (issue 20, DESIGN.md S2), all on 127.0.0.1 in one run:
//  - the cross-node hop: `tools/list` through a tunnel connected to node A, called through node B (forwarded to A
//    over the node-to-node HTTP/2 link) vs through A itself, c=1, same processes, alternating rounds;
//  - failover: the tunnel connects through a tiny TCP load balancer (node A first, B when A refuses); node A is
//    SIGKILLed and the time until a call through B answers 200 again is measured (the client's first reconnect
//    waits 1 s ±20 %, so that dominates).
// The balancer sets TCP_NODELAY on both of its sockets, as Caddy (Go's default), nginx (WebSocket proxying) and
// any real load balancer do: without it, Nagle's algorithm held the tunnel client's last small WebSocket message
// of each answer (the h2 END_STREAM) until the gateway's delayed ACK (40 ms on Linux), which was R9's "72 ms per
// call" (docs/scale.md).
// One redis-server (no persistence), two `mcppipe-gateway --redis … --tunnel-zone …` processes, the SDK echo
// server (bench/src/servers/sdk-echo.js, `/modern`) behind a real `connectTunnel` client. Bounded: calls and time per round, 30 s failover.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectTunnel, forwardToLoopback } from '@mcppipe/tunnel';
import { GATEWAY_CLI, startBaseline, startProcess } from '../lib/processes.js';
import { freePort, median, sleep } from '../lib/util.js';

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

async function call(url) {
  const res = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: LIST,
    signal: AbortSignal.timeout(5_000),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Sequential calls (c=1): at most `count` or `maxMs`; per-call latencies in ms. */
async function latencies(url, count, maxMs) {
  const out = [];
  const until = performance.now() + maxMs;
  for (let i = 0; i < count && performance.now() < until; i++) {
    const t = performance.now();
    const status = await call(url);
    if (status !== 200) throw new Error(`R9: ${url} answered ${status}`);
    out.push(performance.now() - t);
  }
  return out;
}

const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

function balancer(ports) {
  const sockets = new Set();
  // noDelay on both sockets (see the header): a piped answer is passed on at once, not held for an ACK
  const server = createServer({ noDelay: true }, (client) => {
    sockets.add(client);
    client.on('error', () => {});
    client.pause();
    const attempt = (i) => {
      if (i >= ports.length) return void client.destroy();
      const up = connect({ host: '127.0.0.1', port: ports[i], noDelay: true });
      up.once('error', () => attempt(i + 1));
      up.once('connect', () => {
        sockets.add(up);
        up.on('error', () => {});
        up.on('close', () => client.destroy());
        client.on('close', () => up.destroy());
        client.pipe(up).pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      }),
    ),
  );
}

/**
 * @param {object} cfg see run.js (`rounds`, `c1Calls`, `c1Ms`)
 * @param {(line: string) => void} log
 */
export async function scale(cfg, log) {
  const dir = mkdtempSync(join(tmpdir(), 'mcppipe-bench-r9-'));
  const redisPort = await freePort();
  const redisArgs = ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  await startProcess('redis-server', redisArgs, { ready: /Ready to accept connections/ });
  const redis = { url: `redis://127.0.0.1:${redisPort}` };
  const upstream = await startBaseline('sdk-echo.js');
  const loopback = forwardToLoopback({ port: upstream.port });
  let tunnel;
  let lb;
  try {
    writeFileSync(
      join(dir, 'mcp.json'),
      JSON.stringify({ mcpServers: { echo: { url: `http://127.0.0.1:${upstream.port}/modern` } } }),
    );
    const cmd = (args, input = '') =>
      execFileSync(
        process.execPath,
        [GATEWAY_CLI, ...args, '--data-dir', join(dir, 'cmd'), '--redis', redis.url],
        {
          input,
          encoding: 'utf8',
          stdio: ['pipe', 'pipe', 'ignore'],
        },
      );
    cmd(['accounts', 'add', 'bench', '--password-stdin'], 'bench account passphrase');
    const key = cmd(['keys', 'create', '--account', 'bench']).trim();
    const secret = randomBytes(32).toString('hex');
    const node = async (name) => {
      const port = await freePort();
      const h = await startProcess(
        process.execPath,
        [
          GATEWAY_CLI,
          '--config',
          join(dir, 'mcp.json'),
          '--data-dir',
          join(dir, name),
          '--port',
          String(port),
        ],
        {
          ready: /gateway listening/,
          env: {
            MCPPIPE_ADMIN_PASSWORD: 'bench owner passphrase',
            MCPPIPE_REDIS_URL: redis.url,
            MCPPIPE_TUNNEL_ZONE: 'tunnel.test',
            MCPPIPE_NODE_SECRET: secret,
            MCPPIPE_NODE_PORT: String(await freePort()),
            RATE_LIMIT_PER_MINUTE: '999999',
          },
        },
      );
      return { ...h, port, url: `http://127.0.0.1:${port}` };
    };
    const [a, b] = await Promise.all([node('a'), node('b')]);
    lb = await balancer([a.port, b.port]);
    tunnel = connectTunnel({
      relayUrl: `http://127.0.0.1:${lb.port}/tunnel/connect`,
      apiKey: key,
      subdomain: 'bench',
      metadata: { auth: 'none' },
      handler: (req, res) => loopback(req, res),
    });
    await tunnel.connected();
    const path = '/t/bench--bench/modern';
    await latencies(`${a.url}${path}`, 200, 5_000); // warm both paths
    await latencies(`${b.url}${path}`, 200, 5_000);
    const viaA = [];
    const viaB = [];
    for (let r = 0; r < cfg.rounds; r++) {
      viaA.push(...(await latencies(`${a.url}${path}`, cfg.c1Calls, cfg.c1Ms)));
      viaB.push(...(await latencies(`${b.url}${path}`, cfg.c1Calls, cfg.c1Ms)));
    }
    const direct = { median: median(viaA), p99: p99(viaA), calls: viaA.length };
    const hop = { median: median(viaB), p99: p99(viaB), calls: viaB.length };
    log(
      `  R9 via owner A: median ${direct.median.toFixed(3)} ms p99 ${direct.p99.toFixed(3)}; via B → A: median ${hop.median.toFixed(3)} ms p99 ${hop.p99.toFixed(3)}`,
    );
    const killedAt = performance.now();
    a.proc.kill('SIGKILL');
    let failoverMs;
    let offline = 0;
    while (performance.now() - killedAt < 30_000) {
      const status = await call(`${b.url}${path}`).catch(() => 0);
      if (status === 200) {
        failoverMs = performance.now() - killedAt;
        break;
      }
      if (status === 503) offline++;
      await sleep(10);
    }
    if (failoverMs === undefined)
      throw new Error('R9: no call through node B succeeded within 30 s of killing A');
    log(
      `  R9 failover after SIGKILL of the owner: ${failoverMs.toFixed(0)} ms (${offline} × 503 tunnel_offline meanwhile)`,
    );
    return { direct, hop, addedMs: hop.median - direct.median, failoverMs, offlineAnswers: offline };
  } finally {
    await tunnel?.close().catch(() => {});
    lb?.close();
    loopback.close(); // the processes (redis, echo, nodes) are stopped by run.js's stopAll
    rmSync(dir, { recursive: true, force: true });
  }
}

export function scaleRows(s) {
  return [
    { id: 'R9', what: 'tunnel call via the owner node A, c=1 median', value: s.direct.median, unit: 'ms' },
    {
      id: 'R9',
      what: 'tunnel call via node B → A (cross-node hop), c=1 median',
      value: s.hop.median,
      unit: 'ms',
    },
    { id: 'R9', what: 'added latency of the cross-node hop (median)', value: s.addedMs, unit: 'ms' },
    {
      id: 'R9',
      what: 'failover: SIGKILL of the owner → call through B answers',
      value: s.failoverMs,
      unit: 'ms',
    },
  ];
}
