import http from 'node:http';
import net from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';
import { connectTunnel } from './client.js';
import { serveInProcess } from './inProcess.js';
import { startTestRelay } from './testRelay.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One raw HTTP/1.1 exchange on its own socket; resolves with the answer's text and the socket's local port. */
function rawExchange(port: number, request: string): Promise<{ text: string; localPort: number }> {
  return new Promise((resolve, reject) => {
    let localPort = 0;
    const socket = net.connect(port, '127.0.0.1', () => {
      localPort = socket.localPort ?? 0;
      socket.write(request);
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, localPort }));
  });
}

it("an event-stream answer reaches the agent in one write to its socket: END_STREAM comes with the event, so the chunked encoding's end leaves with it", async () => {
  const app = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
    res.end();
  });
  const relay = await startTestRelay();
  cleanups.push(() => relay.close());
  const tunnel = connectTunnel({
    relayUrl: relay.connectUrl,
    apiKey: 'key-alice',
    subdomain: 'laptop',
    handler: serveInProcess({ server: app, authority: '127.0.0.1:8808' }),
  });
  cleanups.push(() => tunnel.close());
  await tunnel.connected();
  const writes = new Map<number, number>(); // remote port → writes the relay made on that socket
  const count = function (this: net.Socket) {
    if (this.remotePort !== undefined) writes.set(this.remotePort, (writes.get(this.remotePort) ?? 0) + 1);
  };
  const proto = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...a: unknown[]) => void>;
  for (const name of ['_write', '_writev'] as const) {
    const original = proto[name];
    vi.spyOn(proto, name).mockImplementation(function (this: net.Socket, ...args: unknown[]) {
      count.call(this);
      return original.apply(this, args);
    });
  }
  const request =
    'POST /mcp HTTP/1.1\r\nhost: relay\r\nx-test-tunnel: laptop--alice\r\nconnection: close\r\n' +
    'content-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
  const { text, localPort } = await rawExchange(relay.port, request);
  expect(text).toMatch(/^HTTP\/1\.1 200 /);
  expect(text).toMatch(/transfer-encoding: chunked/i);
  expect(text).toContain('data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
  expect(text.endsWith('0\r\n\r\n')).toBe(true);
  expect(writes.get(localPort)).toBe(1);
});
