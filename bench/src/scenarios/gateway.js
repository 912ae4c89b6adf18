// R6: the gateway (apps/gateway) with one stdio server-everything upstream.
//  - unauthenticated requests answered 401 per second, c=16: with no Authorization header (answered from the
//    headers alone) and with forged tokens (a real token with a corrupted signature, a different one on every
//    request, so no cache of any kind can answer it: one Ed25519 verification each), against a plain Fastify
//    route answering 401 (fastify-echo.js); plus the CPU per refusal, and the CPU of one Ed25519 verification
//    alone (WebCrypto, what jose calls; a bounded in-process loop) as context for T7;
//  - authenticated `tools/call echo` (2026-07-28 requests; the gateway's routes are stateless) through
//    `/servers/everything/mcp` (verbatim) and `/mcp` (aggregate, `everything__echo`), against R1's mcppipe numbers.
// Tokens come from the real OAuth flow, as an agent gets them (dynamic registration, PKCE, owner login, approval).
// Rate limits are raised for the run so they never answer 429.
import { randomBytes, webcrypto } from 'node:crypto';
import { obtainToken as obtainOwnerToken } from '@mcppipe/test-utils/oauth-flow';
import { performance } from 'node:perf_hooks';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drivers, echoCheck, runLoad } from '../lib/loadgen.js';
import { measureRounds } from '../lib/rounds.js';
import { GATEWAY_CLI, referenceServerPath, startBaseline, startProcess } from '../lib/processes.js';
import { cpuPerCall, describeRun, freePort, median } from '../lib/util.js';

const PASSWORD = 'bench owner passphrase';
/** An access token for one endpoint, the way an agent obtains it (the OAuth flow the e2e tests use too). */
export async function obtainToken(base, path, password = PASSWORD) {
  return (await obtainOwnerToken(base, path, { password, clientName: 'mcppipe bench' })).token;
}

/**
 * The `n`-th forgery of a token: its signature with `n` mixed into the first bytes (and never the real one),
 * so every request of a run carries different bytes; right `kid`, valid claims, so the signature is verified.
 */
export function forgeNth(token, n) {
  const [h, p, s] = token.split('.');
  const sig = Buffer.from(s, 'base64url');
  sig.writeUInt32BE((sig.readUInt32BE(0) ^ (n >>> 0)) >>> 0, 0);
  sig[4] ^= 0xff;
  return `${h}.${p}.${sig.toString('base64url')}`;
}

/**
 * CPU of one Ed25519 signature verification by WebCrypto (`crypto.subtle.verify`, what jose uses), over a
 * token-sized message, in this process: a bounded loop (at most `count` calls or `maxMs`).
 *
 * @returns {Promise<number>} ms of CPU per verification
 */
export async function ed25519VerifyCpuMs(count = 5_000, maxMs = 3_000) {
  const { subtle } = webcrypto;
  const keys = await subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']);
  const data = randomBytes(330);
  const sig = new Uint8Array(await subtle.sign({ name: 'Ed25519' }, keys.privateKey, data));
  sig[0] ^= 0xff; // a forged signature, as in the R6 row
  for (let i = 0; i < 200; i++) await subtle.verify({ name: 'Ed25519' }, keys.publicKey, sig, data);
  const cpu0 = process.cpuUsage();
  const deadline = performance.now() + maxMs;
  let n = 0;
  while (n < count && performance.now() < deadline) {
    await subtle.verify({ name: 'Ed25519' }, keys.publicKey, sig, data);
    n++;
  }
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1000 / n;
}

/**
 * @param {object} cfg see run.js
 * @param {(line: string) => void} log
 * @returns {Promise<object>} `{ pending: reason }` when the gateway is not built or does not start
 */
export async function gateway(cfg, log) {
  if (!existsSync(GATEWAY_CLI)) return { pending: `${GATEWAY_CLI} is not built` };
  const work = mkdtempSync(join(tmpdir(), 'mcppipe-bench-r6-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = join(work, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [referenceServerPath('everything')] } },
    }),
  );
  let gw;
  let fastify;
  try {
    try {
      gw = await startProcess(
        process.execPath,
        [
          GATEWAY_CLI,
          '--config',
          config,
          '--data-dir',
          join(work, 'data'),
          '--public-url',
          base,
          '--port',
          String(port),
          '--log-level',
          'info',
          '--rate-limit',
          '100000000',
          '--client-rpm',
          '100000000',
          '--client-concurrency',
          '10000',
        ],
        { ready: /servers started/, timeoutMs: 90_000, env: { MCPPIPE_ADMIN_PASSWORD: PASSWORD } },
      );
    } catch (err) {
      return { pending: `the gateway did not start: ${err.message.split('\n')[0]}` };
    }
    // readiness: /livez answers and the upstream is up (the per-server route answers 503 until then)
    let tokens;
    try {
      tokens = {
        server: await obtainToken(base, '/servers/everything/mcp'),
        aggregate: await obtainToken(base, '/mcp'),
      };
    } catch (err) {
      return { pending: `could not obtain tokens: ${err.message}` };
    }
    fastify = await startBaseline('fastify-echo.js');
    const echo = (name) => ({ method: 'tools/call', params: { name, arguments: { message: 'bench' } } });
    const check = echoCheck('bench');
    const auth = (t) => ({ authorization: `Bearer ${t}` });
    const targets = [
      {
        key: 'fastify-401',
        pid: fastify.pid,
        driver: drivers.refused({ port: fastify.port, path: '/401', status: 401, request: echo('echo') }),
      },
      {
        key: 'fastify-401-close',
        pid: fastify.pid,
        driver: drivers.refused({
          port: fastify.port,
          path: '/401close',
          status: 401,
          request: echo('echo'),
        }),
      },
      {
        key: 'gateway-401-no-token',
        pid: gw.pid,
        driver: drivers.refused({
          port,
          path: '/servers/everything/mcp',
          status: 401,
          request: echo('echo'),
        }),
      },
      {
        key: 'gateway-401-bad-signature',
        pid: gw.pid,
        driver: drivers.refused({
          port,
          path: '/servers/everything/mcp',
          status: 401,
          request: echo('echo'),
          headersOf: (id) => ({ authorization: `Bearer ${forgeNth(tokens.server, id)}` }),
        }),
      },
      {
        key: 'gateway-server-call',
        pid: gw.pid,
        warm: true,
        driver: drivers.modern({
          port,
          path: '/servers/everything/mcp',
          request: echo('echo'),
          check,
          headers: auth(tokens.server),
        }),
      },
      {
        key: 'gateway-aggregate-call',
        pid: gw.pid,
        warm: true,
        driver: drivers.modern({
          port,
          path: '/mcp',
          request: echo('everything__echo'),
          check,
          headers: auth(tokens.aggregate),
        }),
      },
    ];
    let id = 1;
    for (const t of targets) {
      const r = await runLoad({
        driver: t.driver,
        concurrency: 16,
        maxCalls: t.warm ? cfg.warmUpstream : cfg.warmBaseline,
        maxMs: cfg.warmMs,
        firstId: id,
      });
      id += r.calls;
      log(`  warm-up ${t.key}: ${describeRun(r)}`);
    }
    const { runs } = await measureRounds(targets, cfg, { log, firstId: id, rotate: false });
    const summary = {};
    for (const t of targets) {
      const { c1, c16 } = runs[t.key];
      const cpu = cpuPerCall(c16, 't');
      summary[t.key] = {
        p50: median(c1.map((r) => r.p50)),
        p99: median(c1.map((r) => r.p99)),
        c16PerSecond: median(c16.map((r) => r.perSecond)),
        cpuPerCallMs: cpu.self,
        upstreamCpuPerCallMs: cpu.children,
        errors: [...c1, ...c16].reduce((n, r) => n + r.errors, 0),
        firstError: [...c1, ...c16].find((r) => r.firstError)?.firstError,
      };
    }
    summary.ed25519VerifyCpuMs = await ed25519VerifyCpuMs();
    log(`  one Ed25519 verification (WebCrypto): ${summary.ed25519VerifyCpuMs.toFixed(3)} ms CPU`);
    return { summary };
  } finally {
    await Promise.all([gw?.stop(), fastify?.stop()]);
    rmSync(work, { recursive: true, force: true });
  }
}

/** @param {object} s gateway() result @param {object | undefined} r1 overhead() summary from the same run */
export function gatewayRows(s, r1) {
  if (s.pending)
    return [
      {
        id: 'R6',
        what: `gateway rows: pending (${s.pending})`,
        value: NaN,
        unit: '',
        target: 'T7',
        met: undefined,
      },
    ];
  const g = s.summary;
  const f = g['fastify-401'];
  const rows = [];
  for (const [key, what, target] of [
    [
      'gateway-401-bad-signature',
      '401 rate, forged tokens (a different one per request: one Ed25519 verification), c=16',
      true,
    ],
    ['gateway-401-no-token', '401 rate, no Authorization header, c=16', false],
  ]) {
    const m = g[key];
    const ratio = m.c16PerSecond / f.c16PerSecond;
    rows.push({
      id: 'R6',
      what,
      value: m.c16PerSecond,
      unit: 'req/s',
      baseline: f.c16PerSecond,
      baselineName: 'Fastify 401 route',
      ratio,
      ...(target ? { target: 'T7', limit: { min: 0.5 }, met: ratio >= 0.5 } : {}),
    });
  }
  for (const [key, what] of [
    ['gateway-401-bad-signature', 'gateway CPU per 401, forged tokens, c=16'],
    ['gateway-401-no-token', 'gateway CPU per 401, no Authorization header, c=16'],
  ]) {
    rows.push({
      id: 'R6',
      what,
      value: g[key].cpuPerCallMs,
      unit: 'ms',
      baseline: f.cpuPerCallMs,
      baselineName: 'Fastify CPU per 401',
      ratio: g[key].cpuPerCallMs / f.cpuPerCallMs,
    });
  }
  if (Number.isFinite(g.ed25519VerifyCpuMs)) {
    rows.push({
      id: 'R6',
      what: 'context: one Ed25519 verification alone (WebCrypto, as jose calls it), CPU',
      value: g.ed25519VerifyCpuMs,
      unit: 'ms',
      baseline: f.cpuPerCallMs,
      baselineName: 'Fastify CPU per 401',
      ratio: g.ed25519VerifyCpuMs / f.cpuPerCallMs,
    });
  }
  const fc = g['fastify-401-close'];
  if (fc) {
    rows.push({
      id: 'R6',
      what: 'context: Fastify 401 route closing the connection, c=16',
      value: fc.c16PerSecond,
      unit: 'req/s',
      baseline: f.c16PerSecond,
      baselineName: 'Fastify 401 route',
      ratio: fc.c16PerSecond / f.c16PerSecond,
    });
    const bad = g['gateway-401-bad-signature'];
    rows.push({
      id: 'R6',
      what: '401 rate, forged tokens, vs a Fastify 401 that also closes the connection',
      value: bad.c16PerSecond,
      unit: 'req/s',
      baseline: fc.c16PerSecond,
      baselineName: 'Fastify 401 + close',
      ratio: bad.c16PerSecond / fc.c16PerSecond,
    });
  }
  const floor = r1?.['mcppipe-modern'];
  for (const [key, what] of [
    ['gateway-server-call', 'authenticated tools/call via /servers/everything/mcp'],
    ['gateway-aggregate-call', 'authenticated tools/call via /mcp (everything__echo)'],
  ]) {
    const m = g[key];
    rows.push(
      {
        id: 'R6',
        what: `${what}, c=16 throughput`,
        value: m.c16PerSecond,
        unit: 'calls/s',
        ...(floor
          ? {
              baseline: floor.c16PerSecond,
              baselineName: 'R1 mcppipe (2026-07-28)',
              ratio: m.c16PerSecond / floor.c16PerSecond,
            }
          : {}),
      },
      {
        id: 'R6',
        what: `${what}, c=1 p50`,
        value: m.p50,
        unit: 'ms',
        ...(floor
          ? { baseline: floor.p50, baselineName: 'R1 mcppipe (2026-07-28)', ratio: m.p50 / floor.p50 }
          : {}),
      },
      {
        id: 'R6',
        what: `${what}, gateway CPU per call, c=16`,
        value: m.cpuPerCallMs,
        unit: 'ms',
        ...(floor
          ? {
              baseline: floor.cpuPerCallMs,
              baselineName: 'R1 mcppipe (2026-07-28)',
              ratio: m.cpuPerCallMs / floor.cpuPerCallMs,
            }
          : {}),
      },
    );
  }
  return rows;
}
