import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { freePort, startFixtureServer, waitFor } from '@mcppipe/test-utils';
import { aggregatorPolicy } from '@mcppipe/upstream-state';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from './index.js';
import { Supervisor } from './index.js';

const T = 60_000;
const noRetry = aggregatorPolicy({ initialBackoffMs: 60_000, maxBackoffMs: 60_000 }, {});
const echo = (text: string) => ({ method: 'tools/call', params: { name: 'echo', arguments: { text } } });
const textOf = (r: Record<string, unknown>) => (r['content'] as Array<{ text: string }>)[0]!.text;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A loopback server that answers every request with `status` and records what it saw. */
async function statusServer(status: number) {
  const seen: Array<{ method: string | undefined; url: string | undefined; headers: IncomingHttpHeaders }> =
    [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers });
    req.resume();
    res.writeHead(status, { 'content-type': 'text/plain' }).end(`status ${status}`);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { seen, url: `http://127.0.0.1:${port}/mcp` };
}

async function stats(url: string): Promise<Record<string, number>> {
  return (await (await fetch(url)).json()) as Record<string, number>;
}

describe('HTTP upstreams', () => {
  it(
    'a call refused at the socket (the server is gone) takes the upstream down at once and answers unavailable',
    async () => {
      const server = await startFixtureServer('sup-http-forgetful.mjs');
      await using sup = new Supervisor({
        upstreams: [{ name: 'web', transport: 'http', url: server.url() }],
        policy: noRetry, // no probe or retry gets in the way within this test
      });
      await sup.start();
      expect(textOf(await sup.request('web', echo('one')))).toBe('one');
      await server.close(); // SIGKILL: nothing listens on the port any more
      await expect(sup.request('web', echo('two'))).rejects.toMatchObject({ code: 'MCPP_SUP_UNAVAILABLE' });
      expect(sup.get('web')).toMatchObject({ phase: 'recovering', lastErrorCode: 'MCPP_SUP_EXITED' });
      expect(sup.get('web')?.lastError).toBe(
        `connection lost: connection refused at ${server.url()}: nothing listens on ${new URL(server.url()).host}; is the server running, and is the port right?`,
      );
    },
    T,
  );

  it.each([
    ['404', []],
    ['400', ['--unknown-status', '400']],
  ])(
    'an expired session (%s) is re-initialized and the call retried once, transparently',
    async (_label, args) => {
      await using server = await startFixtureServer('sup-http-forgetful.mjs', args);
      await using sup = new Supervisor({
        upstreams: [{ name: 'web', transport: 'http', url: server.url() }],
        policy: noRetry,
      });
      await sup.start();
      const first = sup.get('web')!;
      expect(first).toMatchObject({ phase: 'available', connectedVia: 'streamable-http', era: 'legacy' });
      expect(textOf(await sup.request('web', echo('one')))).toBe('one');

      await fetch(server.url('/forget'), { method: 'POST' });
      expect(textOf(await sup.request('web', echo('two')))).toBe('two');
      expect(await stats(server.url('/stats'))).toMatchObject({ initializations: 2, sessions: 1 });
      const after = sup.get('web')!;
      expect(after.phase).toBe('available');
      expect(after.generation).toBe(first.generation + 1);
    },
    T,
  );

  it(
    'a legacy SSE-only server is reached by fallback (the first POST got 405)',
    async () => {
      await using server = await startFixtureServer('sup-legacy-sse.mjs');
      await using sup = new Supervisor({
        upstreams: [{ name: 'old', transport: 'http', url: server.url('/sse') }],
        policy: noRetry,
      });
      await sup.start();
      expect(sup.get('old')).toMatchObject({ phase: 'available', connectedVia: 'sse', era: 'legacy' });
      expect(textOf(await sup.request('old', echo('via sse')))).toBe('via sse');
      expect(await stats(server.url('/stats'))).toMatchObject({ streams: 1 });
    },
    T,
  );

  it(
    'a 500 does not fall back to SSE',
    async () => {
      const broken = await statusServer(500);
      await using sup = new Supervisor({
        upstreams: [{ name: 'broken', transport: 'http', url: broken.url }],
        policy: noRetry,
      });
      await sup.start();
      const snap = sup.get('broken')!;
      expect(snap.phase).toBe('recovering');
      expect(snap.lastError).toMatch(/500/);
      expect(broken.seen.length).toBeGreaterThan(0);
      expect(broken.seen.every((r) => r.method === 'POST')).toBe(true); // no GET: no SSE attempt
    },
    T,
  );

  it(
    'a refused connection does not fall back to SSE either',
    async () => {
      const port = await freePort();
      const lines: string[] = [];
      const logger: Logger = {
        debug() {},
        info: (_o, m) => lines.push(m ?? ''),
        warn: (_o, m) => lines.push(m ?? ''),
        error() {},
      };
      await using sup = new Supervisor({
        upstreams: [{ name: 'nobody', transport: 'http', url: `http://127.0.0.1:${port}/mcp` }],
        policy: noRetry,
        logger,
      });
      await sup.start();
      expect(sup.get('nobody')!.phase).toBe('recovering');
      expect(lines.some((l) => l.includes('legacy SSE'))).toBe(false);
    },
    T,
  );

  it(
    'a closed port says "connection refused at <url>", without the query (credentials travel there)',
    async () => {
      const port = await freePort();
      await using sup = new Supervisor({
        upstreams: [{ name: 'nobody', transport: 'http', url: `http://127.0.0.1:${port}/mcp?token=s3cret` }],
        policy: noRetry,
      });
      await sup.start();
      expect(sup.get('nobody')).toMatchObject({
        phase: 'recovering',
        lastErrorCode: 'MCPP_SUP_CONNECT_FAILED',
        lastError: `connection refused at http://127.0.0.1:${port}/mcp: nothing listens on 127.0.0.1:${port}; is the server running, and is the port right?`,
      });
    },
    T,
  );

  it(
    'a host that does not resolve (.invalid, RFC 2606) says "could not resolve host"',
    async () => {
      await using sup = new Supervisor({
        upstreams: [{ name: 'nowhere', transport: 'http', url: 'http://mcppipe-test.invalid:8080/mcp' }],
        policy: noRetry,
      });
      await sup.start();
      expect(sup.get('nowhere')).toMatchObject({
        phase: 'recovering',
        lastErrorCode: 'MCPP_SUP_CONNECT_FAILED',
      });
      expect(sup.get('nowhere')!.lastError).toMatch(
        /^could not resolve host "mcppipe-test\.invalid" \(http:\/\/mcppipe-test\.invalid:8080\/mcp\): /,
      );
    },
    T,
  );

  it(
    'an https URL at a plain HTTP server says the TLS handshake failed',
    async () => {
      const plain = await statusServer(200);
      const url = plain.url.replace('http:', 'https:');
      await using sup = new Supervisor({
        upstreams: [{ name: 'tls', transport: 'http', url }],
        policy: noRetry,
      });
      await sup.start();
      expect(sup.get('tls')).toMatchObject({
        phase: 'recovering',
        lastErrorCode: 'MCPP_SUP_CONNECT_FAILED',
        lastError: `TLS handshake with ${url} failed (ERR_SSL_WRONG_VERSION_NUMBER): does the server speak HTTPS there, or should the URL say http://?`,
      });
    },
    T,
  );

  it(
    'an error that embeds the URL is recorded, emitted and logged without its userinfo or query',
    async () => {
      const port = await freePort();
      const logged: string[] = [];
      const record = (o: object, m?: string) => logged.push(`${m} ${JSON.stringify(o)}`);
      const events: string[] = [];
      await using sup = new Supervisor({
        // a library caller can pass such a URL (the config rules refuse it); fetch refuses it, naming the URL
        upstreams: [
          { name: 'dead', transport: 'http', url: `http://user:pw@127.0.0.1:${port}/mcp?token=\${TOK}` },
        ],
        env: { TOK: 'SECRET123' },
        policy: noRetry,
        logger: { debug: record, info: record, warn: record, error: record },
      });
      sup.on('state_changed', (e) => events.push(e.error ?? ''));
      await sup.start();
      const { lastError } = sup.get('dead')!;
      expect(lastError).toContain(`http://[redacted]@127.0.0.1:${port}/mcp?[redacted]`);
      const everything = [lastError, ...events, ...logged].join('\n');
      expect(everything).toContain('credentials'); // the SDK's message is kept, its URL redacted
      expect(everything).not.toMatch(/SECRET123|user:pw|token=/);
    },
    T,
  );

  it(
    'configured headers are ${VAR}-expanded and sent, and never logged',
    async () => {
      const gone = await statusServer(404);
      const logged: string[] = [];
      const record = (o: object, m?: string) => logged.push(`${m} ${JSON.stringify(o)}`);
      await using sup = new Supervisor({
        upstreams: [
          {
            name: 'auth',
            transport: 'http',
            url: gone.url,
            headers: { Authorization: 'Bearer ${MCPP_TEST_TOKEN}', 'X-Team': '${MCPP_TEST_TEAM:-core}' },
          },
        ],
        env: { MCPP_TEST_TOKEN: 'sekrit-123' },
        policy: noRetry,
        logger: { debug: record, info: record, warn: record, error: record },
      });
      await sup.start();
      await waitFor(() => gone.seen.length >= 2, { timeoutMs: 10_000 });
      for (const r of gone.seen) {
        expect(r.headers['authorization']).toBe('Bearer sekrit-123');
        expect(r.headers['x-team']).toBe('core');
      }
      // 404 on the first POST → SSE fallback (a GET) → also 404 → the attempt failed
      expect(gone.seen.map((r) => r.method)).toContain('GET');
      expect(logged.join('\n')).not.toContain('sekrit-123');
      expect(logged.join('\n')).toContain('[redacted]');
    },
    T,
  );

  it(
    'negotiates the 2026-07-28 era automatically with a modern server; list changes arrive via subscriptions/listen',
    async () => {
      await using server = await startFixtureServer('sup-http-modern.mjs');
      const notes: string[] = [];
      await using sup = new Supervisor({
        upstreams: [{ name: 'modern', transport: 'http', url: server.url() }],
        policy: aggregatorPolicy({ probeIntervalMs: 200, probeTimeoutMs: 5_000 }, {}),
      });
      sup.on('notification', (n) => notes.push(n.method));
      await sup.start();
      const snap = sup.get('modern')!;
      expect(snap).toMatchObject({ phase: 'available', era: 'modern', protocolVersion: '2026-07-28' });
      expect(snap.capabilities?.['experimental']).toEqual({ 'x-modern': {} });
      expect(textOf(await sup.request('modern', echo('new era')))).toBe('new era');
      await sup.request('modern', { method: 'tools/call', params: { name: 'changed', arguments: {} } });
      await waitFor(() => notes.includes('notifications/tools/list_changed'), {
        timeoutMs: 10_000,
        message: 'list_changed',
      });
      // liveness probes use server/discover on this era; a few rounds pass without a restart
      await new Promise((r) => setTimeout(r, 700));
      expect(sup.get('modern')!.generation).toBe(snap.generation);
    },
    T,
  );

  it(
    'does not follow a redirect to another origin (configured credentials stay home)',
    async () => {
      const elsewhere = await statusServer(200);
      const redirector = createServer((req, res) => {
        req.resume();
        res.writeHead(307, { location: elsewhere.url }).end();
      });
      servers.push(redirector);
      await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(redirector.address() as { port: number }).port}/mcp`;
      await using sup = new Supervisor({
        upstreams: [{ name: 'moved', transport: 'http', url, headers: { Authorization: 'Bearer secret' } }],
        policy: noRetry,
      });
      await sup.start();
      expect(sup.get('moved')!.phase).toBe('recovering');
      expect(elsewhere.seen).toEqual([]);
    },
    T,
  );
});
