import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { METADATA_HEADER } from '@mcppipe/tunnel';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECT_PATH, connectUpgrade } from './connect.js';

/** A registry that records the upgrades handed to it and closes their sockets. */
function fakeRegistry() {
  const handed: string[] = [];
  return {
    handed,
    handleUpgrade: (req: IncomingMessage, socket: Duplex) => {
      handed.push(req.url ?? '');
      socket.end('HTTP/1.1 418 handed over\r\nConnection: close\r\n\r\n');
      return Promise.resolve(undefined);
    },
  };
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** Sends one raw upgrade request to a real server whose `upgrade` listener is {@link connectUpgrade}. */
async function upgrade(path: string, metadata: string | undefined) {
  const registry = fakeRegistry();
  server = createServer((_req, res) => res.end());
  server.on('upgrade', connectUpgrade(registry));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  const head = [
    `GET ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    ...(metadata === undefined ? [] : [`${METADATA_HEADER}: ${metadata}`]),
  ];
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
  await new Promise((resolve) => socket.on('close', resolve));
  return { answer, handed: registry.handed };
}

describe('connectUpgrade', () => {
  it('refuses a policy the relay cannot enforce with 400 MCPP_TUNNEL_REFUSED, before the registry', async () => {
    const { answer, handed } = await upgrade(CONNECT_PATH, JSON.stringify({ auth: 'maybe' }));
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      error: {
        code: 'MCPP_TUNNEL_REFUSED',
        message: 'tunnel policy: auth "maybe" is not one of oauth, api-key, none',
      },
    });
    expect(handed).toEqual([]);
  });

  it('drops an upgrade on another path without an answer', async () => {
    const { answer, handed } = await upgrade('/tunnel/elsewhere', undefined);
    expect(answer).toBe('');
    expect(handed).toEqual([]);
  });

  it('hands a valid policy, no metadata, and malformed metadata (the registry refuses it) to the registry', async () => {
    const valid = JSON.stringify({ auth: 'api-key', allow: '10.0.0.0/8' });
    expect((await upgrade(`${CONNECT_PATH}?v=1`, valid)).handed).toEqual([`${CONNECT_PATH}?v=1`]);
    expect((await upgrade(CONNECT_PATH, undefined)).handed).toEqual([CONNECT_PATH]);
    const malformed = await upgrade(CONNECT_PATH, '{not json');
    expect(malformed.handed).toEqual([CONNECT_PATH]);
    expect(malformed.answer.split('\r\n')[0]).toBe('HTTP/1.1 418 handed over');
  });
});
