// A one-off investigation, not a run.js scenario: what closing issue 20's gaps costs (DESIGN.md S1, S2), measured
// once for docs/scale.md ("The cost of the closed gaps"; bench/results/2026-12-01-scale-gaps.json). Kept to rerun
// after a change to the shared store; `node bench/src/run.js` does not run it (R9 is the scale scenario there).
//
//   node bench/src/tools/scale-gaps.mjs [--rounds 5]
//
// Needs the workspace built (`npx -y pnpm@12.4.2 build`) and redis-server installed. Prints a JSON summary on stdout,
// a line per round on stderr. All on 127.0.0.1, in one run:
//  - tunnel connect → connected → close on node A (`--redis`: the cross-node reservation, the claim and the release
//    are Redis round trips) vs node C (no Redis, the baseline), alternating rounds;
//  - `GET /api/session` with a session cookie on A (one Redis read per request) vs C, alternating rounds;
//  - propagation: a webhook created on A until B lists it; a pin accepted on A until B reads it.
// One redis-server (no persistence), three gateway processes, the SDK echo server. Bounded: counts and time per
// round.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectTunnel } from '@mcppipe/tunnel';
import { GATEWAY_CLI, startBaseline, startProcess, stopAll } from '../lib/processes.js';
import { freePort, median, sleep } from '../lib/util.js';

const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const CONNECTS = 20; // per node per round
const GETS = 200; // per node per round
const ROUND_MS = 15_000; // per node per round, whatever the count
const ADMIN = randomBytes(24).toString('hex');
const PW = 'bench account passphrase';
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

/** Polls `check` every 2 ms (at most 5 s); ms until it held. */
async function until(check) {
  const t = performance.now();
  while (!(await check())) {
    if (performance.now() - t > 5_000) throw new Error('propagation: not within 5 s');
    await sleep(2);
  }
  return performance.now() - t;
}

const dir = mkdtempSync(join(tmpdir(), 'mcppipe-bench-gaps-'));
const load = [loadavg()[0]];
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
  const cmd = (args, where, input = '') =>
    execFileSync(process.execPath, [GATEWAY_CLI, ...args, ...where], {
      input,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'ignore'],
    });
  const shared = ['--data-dir', join(dir, 'cmd'), '--redis', redisUrl];
  const solo = ['--data-dir', join(dir, 'c')];
  for (const where of [shared, solo]) cmd(['accounts', 'add', 'bench', '--password-stdin'], where, PW);
  const keys = { shared: cmd(['keys', 'create', '--account', 'bench'], shared).trim() };
  keys.solo = cmd(['keys', 'create', '--account', 'bench'], solo).trim();
  const secret = randomBytes(32).toString('hex');
  const node = async (name, redis) => {
    const port = await freePort();
    const args = ['--config', join(dir, 'mcp.json'), '--data-dir', join(dir, name), '--port', String(port)];
    const env = {
      MCPPIPE_ADMIN_PASSWORD: 'bench owner passphrase',
      MCPPIPE_TUNNEL_ZONE: 'tunnel.test',
      MCPPIPE_API_TOKEN: ADMIN,
      MCPPIPE_WEBHOOKS_ALLOW_PRIVATE: '1',
      RATE_LIMIT_PER_MINUTE: '999999',
      ...(redis && {
        MCPPIPE_REDIS_URL: redisUrl,
        MCPPIPE_NODE_SECRET: secret,
        MCPPIPE_NODE_PORT: String(await freePort()),
      }),
    };
    await startProcess(process.execPath, [GATEWAY_CLI, ...args], { ready: /gateway listening/, env });
    return `http://127.0.0.1:${port}`;
  };
  const [a, b, c] = await Promise.all([node('a', true), node('b', true), node('c', false)]);

  const connectClose = (url, key) => async () => {
    const t = connectTunnel({
      relayUrl: `${url}/tunnel/connect`,
      apiKey: key,
      subdomain: 'bench',
      metadata: { auth: 'none' },
      handler: (_req, res) => res.end(),
    });
    await t.connected();
    await t.close();
  };
  const login = async (url) => {
    const res = await fetch(`${url}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account: 'bench', password: PW }),
    });
    if (res.status !== 200) throw new Error(`login on ${url}: ${res.status}`);
    const cookie = res.headers.get('set-cookie').split(';')[0];
    return async () => {
      const r = await fetch(`${url}/api/session`, { headers: { cookie } });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`GET /api/session: ${r.status}`);
    };
  };
  const sessionA = await login(a);
  const sessionC = await login(c);
  await timed(CONNECTS, connectClose(a, keys.shared)); // warm-up
  await timed(CONNECTS, connectClose(c, keys.solo));
  await timed(GETS, sessionA);
  await timed(GETS, sessionC);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? ['c', 'a'] : ['a', 'c'];
    const row = {};
    for (const n of order) {
      const url = n === 'a' ? a : c;
      row[`connect_${n}`] = median(
        await timed(CONNECTS, connectClose(url, n === 'a' ? keys.shared : keys.solo)),
      );
      row[`session_${n}`] = median(await timed(GETS, n === 'a' ? sessionA : sessionC));
    }
    rounds.push(row);
    log(
      `round ${r + 1}: connect+close A ${row.connect_a.toFixed(2)} ms, C ${row.connect_c.toFixed(2)} ms; ` +
        `GET /api/session A ${row.session_a.toFixed(3)} ms, C ${row.session_c.toFixed(3)} ms`,
    );
  }
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const webhookMs = [];
  const pinMs = [];
  for (let i = 0; i < 10; i++) {
    const created = await fetch(`${a}/api/webhooks`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ url: `http://127.0.0.1:9/hook${i}`, events: ['tool.changed'] }),
    });
    const { id } = await created.json();
    webhookMs.push(
      await until(async () =>
        (await (await fetch(`${b}/api/webhooks`, { headers: admin })).text()).includes(id),
      ),
    );
    await fetch(`${a}/api/webhooks/${id}`, {
      method: 'DELETE',
      headers: { authorization: admin.authorization },
    });
    await sleep(5);
    const accepted = await (
      await fetch(`${a}/api/servers/echo/tools/echo/accept`, {
        method: 'POST',
        headers: { authorization: admin.authorization },
      })
    ).json();
    pinMs.push(
      await until(async () => {
        const { tools } = await (await fetch(`${b}/api/servers/echo/tools`, { headers: admin })).json();
        return tools.find((t) => t.name === 'echo')?.pinnedAt === accepted.pinnedAt;
      }),
    );
  }
  load.push(loadavg()[0]);
  const m = (k) => median(rounds.map((r) => r[k]));
  const ratio = (k) => median(rounds.map((r) => r[`${k}_a`] / r[`${k}_c`]));
  const result = {
    rounds: ROUNDS,
    loadavg1: load,
    connectCloseMs: {
      redis: m('connect_a'),
      baseline: m('connect_c'),
      ratio: ratio('connect'), // the median of the per-round ratios (each round's pair is adjacent)
    },
    sessionGetMs: { redis: m('session_a'), baseline: m('session_c'), ratio: ratio('session') },
    webhookPropagationMs: median(webhookMs),
    pinPropagationMs: median(pinMs),
    perRound: rounds,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
