import { createHash, randomBytes } from 'node:crypto';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import type { TunnelClient, TunnelStatus } from './client.js';
import { connectTunnel } from './client.js';
import type { TestRelay } from './testRelay.js';
import { startTestRelay } from './testRelay.js';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function readBody(req: Http2ServerRequest): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

interface AppProbe {
  sseGate: { release: () => void };
  slowClosed: Promise<{ ended: boolean; rstCode: number | undefined }>;
  hits: number;
}

/** The CLI-side app served through the tunnel, in the h2 compatibility API. */
function testApp(name = 'app'): {
  handler: (req: Http2ServerRequest, res: Http2ServerResponse) => void;
  probe: AppProbe;
} {
  let release = (): void => {};
  const gate = new Promise<void>((r) => (release = r));
  let slowClosed!: (v: { ended: boolean; rstCode: number | undefined }) => void;
  const probe: AppProbe = {
    sseGate: { release: () => release() },
    slowClosed: new Promise((r) => (slowClosed = r)),
    hits: 0,
  };
  const handler = (req: Http2ServerRequest, res: Http2ServerResponse): void => {
    probe.hits++;
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/echo') {
      void readBody(req).then((body) => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-app': name });
        res.end(
          JSON.stringify({
            method: req.method,
            path: req.url,
            bytes: body.length,
            sha: sha(body),
            json: req.headers['content-type'] === 'application/json' ? JSON.parse(body.toString()) : null,
            forwardedProto: req.headers['x-forwarded-proto'] ?? null,
            testHeader: req.headers['x-test-tunnel'] ?? null,
            authority: req.headers[':authority'],
          }),
        );
      });
    } else if (url.pathname === '/big') {
      const n = Number(url.searchParams.get('n'));
      const body = Buffer.alloc(n);
      for (let i = 0; i < n; i++) body[i] = (i * 31 + 7) & 0xff;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-sha': sha(body) });
      res.end(body);
    } else if (url.pathname === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('data: first\n\n');
      void gate.then(() => res.end('data: second\n\n'));
    } else if (url.pathname === '/slow') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: started\n\n');
      res.on('close', () => slowClosed({ ended: res.writableEnded, rstCode: res.stream.rstCode }));
    } else {
      res.writeHead(404);
      res.end();
    }
  };
  return { handler, probe };
}

async function relay(options: Parameters<typeof startTestRelay>[0] = {}): Promise<TestRelay> {
  const r = await startTestRelay(options);
  cleanups.push(() => r.close());
  return r;
}

function client(
  r: TestRelay,
  opts: { apiKey?: string; subdomain?: string; handler?: ReturnType<typeof testApp>['handler'] } = {},
): { tunnel: TunnelClient; statuses: TunnelStatus[]; probe: AppProbe } {
  const app = testApp();
  const statuses: TunnelStatus[] = [];
  const tunnel = connectTunnel({
    relayUrl: r.connectUrl,
    apiKey: opts.apiKey ?? 'key-alice',
    subdomain: opts.subdomain ?? 'laptop',
    handler: opts.handler ?? app.handler,
    backoff: { initialMs: 50, maxMs: 200 },
    onStatus: (s) => statuses.push(s),
  });
  cleanups.push(() => tunnel.close());
  return { tunnel, statuses, probe: app.probe };
}

const route = (sub = 'laptop', account = 'alice'): Record<string, string> => ({
  'x-test-tunnel': `${sub}--${account}`,
});

describe('the auth mode the relay applies (T5)', () => {
  it('reaches the client in the 101 answer when the relay says it, and is undefined when it does not', async () => {
    const saying = await relay({
      authMode: (claim) => (claim.subdomain === 'laptop' ? 'api-key' : undefined),
    });
    const { tunnel } = client(saying);
    await tunnel.connected();
    expect(tunnel.auth).toBe('api-key');
    const other = client(saying, { subdomain: 'desk' }).tunnel;
    await other.connected();
    expect(other.auth).toBeUndefined();
    const silent = client(await relay()).tunnel;
    await silent.connected();
    expect(silent.auth).toBeUndefined();
  });
});

describe('tunnel round trips (relay ⇄ h2 over one WebSocket ⇄ CLI handler)', () => {
  it('a JSON POST goes through and comes back, with the public URL from the 101', async () => {
    const r = await relay();
    const { tunnel } = client(r);
    expect(await tunnel.connected()).toBe('https://laptop--alice.tunnel.test/mcp');
    expect(tunnel.publicUrl).toBe('https://laptop--alice.tunnel.test/mcp');
    const res = await fetch(`${r.publicBase}/echo?x=1`, {
      method: 'POST',
      headers: { ...route(), 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-app')).toBe('app');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      method: 'POST',
      path: '/echo?x=1',
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      forwardedProto: 'https',
      testHeader: null,
      authority: `127.0.0.1:${r.port}`,
    });
    expect(r.registry.list()).toMatchObject([{ account: 'alice', keyId: 'ka', subdomain: 'laptop' }]);
  });

  it('a 1 MB request body and a 3 MB response body arrive intact', async () => {
    const r = await relay();
    const { tunnel } = client(r);
    await tunnel.connected();
    const up = randomBytes(1024 * 1024);
    const echo = (await (
      await fetch(`${r.publicBase}/echo`, { method: 'POST', headers: route(), body: up })
    ).json()) as { bytes: number; sha: string };
    expect(echo).toMatchObject({ bytes: up.length, sha: sha(up) });
    const res = await fetch(`${r.publicBase}/big?n=${3 * 1024 * 1024}`, { headers: route() });
    const down = new Uint8Array(await res.arrayBuffer());
    expect(down.length).toBe(3 * 1024 * 1024);
    expect(sha(down)).toBe(res.headers.get('x-sha'));
  }, 30_000); // 4 MB through the relay, h2 and the WebSocket: up to ~6 s on the shared, loaded machine

  it('an SSE response streams: the first event arrives before the stream ends', async () => {
    const r = await relay();
    const { tunnel, probe } = client(r);
    await tunnel.connected();
    const res = await fetch(`${r.publicBase}/sse`, { headers: route() });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: first\n\n');
    probe.sseGate.release();
    let rest = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toBe('data: second\n\n');
  });

  it('200 concurrent requests on one tunnel all come back correct', async () => {
    const r = await relay();
    const { tunnel } = client(r);
    await tunnel.connected();
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await fetch(`${r.publicBase}/echo?i=${i}`, {
          method: 'POST',
          headers: { ...route(), 'content-type': 'application/json' },
          body: JSON.stringify({ i }),
        });
        return (await res.json()) as { path: string; json: { i: number } };
      }),
    );
    results.forEach((body, i) => expect(body).toMatchObject({ path: `/echo?i=${i}`, json: { i } }));
  }, 30_000); // 200 round trips take ~4.6 s on the shared 2-core machine, close to the 5 s default

  it('a public client that goes away resets its stream: the CLI handler sees close before finishing', async () => {
    const r = await relay();
    const { tunnel, probe } = client(r);
    await tunnel.connected();
    const abort = new AbortController();
    const res = await fetch(`${r.publicBase}/slow`, { headers: route(), signal: abort.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: started\n\n');
    abort.abort();
    // RST_STREAM CANCEL (8) reached the CLI while its handler had not ended the response
    expect(await probe.slowClosed).toEqual({ ended: false, rstCode: 8 });
  });
});
