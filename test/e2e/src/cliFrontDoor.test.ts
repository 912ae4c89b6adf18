// The HTTP front door of `mcppipe up` (issue 21): `--host localhost` is reachable on both loopback addresses, whichever
// a client resolves localhost to, and stops cleanly with a connection open on either; HEAD /mcp is answered as GET
// without a body, as the gateway's /mcp does.
import { createServer } from 'node:net';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  fixturePath,
  freePort,
  hasIpv6Loopback,
  postInitialize,
  runCli,
  startCli,
} from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';

const stdio = `${JSON.stringify(process.execPath)} ${JSON.stringify(fixturePath('sup-basic.mjs'))}`;
const ipv6 = await hasIpv6Loopback();

describe('mcppipe up --host localhost', () => {
  it.skipIf(!ipv6)('serves 127.0.0.1 and [::1] on one port and prints localhost', async () => {
    await using cli = await startCli(['--stdio', stdio, '--host', 'localhost']);
    expect(cli.url.hostname).toBe('localhost');
    const port = cli.url.port;
    const clients: V1Client[] = [];
    for (const host of ['127.0.0.1', '[::1]', 'localhost']) {
      const c = new V1Client({ name: `e2e-${host}`, version: '1' });
      await c.connect(new V1Transport(new URL(`http://${host}:${port}/mcp`)));
      const { tools } = await c.listTools();
      expect(tools.length, host).toBeGreaterThan(0);
      clients.push(c); // each keeps its session (and its GET stream) open: the stop below must end them
    }
    expect(await cli.stop()).toBe(0);
    for (const c of clients) await c.close();
  });

  it.skipIf(!ipv6)('refuses to start when the port is taken on [::1] only, naming the address', async () => {
    const port = await freePort();
    const squatter = createServer();
    await new Promise<void>((resolve, reject) => {
      squatter.once('error', reject).listen(port, '::1', () => resolve());
    });
    try {
      const r = await runCli(['up', '--stdio', stdio, '--host', 'localhost', '--port', String(port)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`cannot listen on localhost:${port}: the address is already in use`);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('binds one address for any other host, as given', async () => {
    await using cli = await startCli(['--stdio', stdio, '--host', '127.0.0.1']);
    expect(cli.url.hostname).toBe('127.0.0.1');
    expect((await postInitialize(cli.url.href)).status).toBe(200);
    if (ipv6) {
      const other = await postInitialize(`http://[::1]:${cli.url.port}/mcp`).catch((e: Error) => e);
      expect(other).toBeInstanceOf(Error); // connection refused: nothing listens there
    }
  });
});

describe('HEAD /mcp', () => {
  it('is answered as GET without a body: 400 without a session, 405 with Allow in one, 404 elsewhere', async () => {
    await using cli = await startCli(['--stdio', stdio]);
    const url = cli.url.href;
    const [head, get] = await Promise.all([
      fetch(url, { method: 'HEAD' }),
      fetch(url, { method: 'GET', headers: { accept: 'text/event-stream' } }),
    ]);
    expect(head.status).toBe(get.status);
    expect(head.status).toBe(400);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(await head.text()).toBe('');
    expect(await get.json()).toMatchObject({ error: { code: -32000 } });

    const init = await postInitialize(url);
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id') ?? '';
    expect(session).not.toBe('');
    await init.body?.cancel();
    const inSession = await fetch(url, {
      method: 'HEAD',
      headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(inSession.status).toBe(405);
    expect(inSession.headers.get('allow')).toBe('GET, POST, DELETE');
    expect(await inSession.text()).toBe('');

    const elsewhere = await fetch(new URL('/other', url), { method: 'HEAD' });
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.text()).toBe('');
  });
});
