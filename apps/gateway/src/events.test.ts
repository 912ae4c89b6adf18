import { normalizeResource } from '@mcppipe/oauth';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpPipeEvent } from '@mcppipe/events';
import { Supervisor, type UpstreamSpec } from '@mcppipe/supervisor';
import { gatewayPolicy } from '@mcppipe/upstream-state';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { createGatewayEvents, type GatewayEvents } from './events/scope.js';
import { FakeVerifier, fixturePath, freePort, readSse, waitFor } from '@mcppipe/test-utils';
import type { SseEvent } from '@mcppipe/test-utils';

const TOKEN = 'test-api-token-0123456789';
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const stdio = (name: string, fixture: string): UpstreamSpec => ({
  name,
  transport: 'stdio',
  command: process.execPath,
  args: [fixturePath(fixture)],
});

async function start(upstreams: UpstreamSpec[], options: Parameters<typeof createGatewayEvents>[1] = {}) {
  const supervisor = new Supervisor({ upstreams, policy: gatewayPolicy() });
  const events: GatewayEvents = await createGatewayEvents(supervisor, options);
  await supervisor.start();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app: FastifyInstance = await buildApp({
    registry: events.registry,
    verifier: new FakeVerifier(normalizeResource),
    publicUrl: base,
    events,
    apiToken: TOKEN,
  });
  await app.listen({ port, host: '127.0.0.1' });
  cleanup.push(async () => {
    events.close();
    await app.close();
    await supervisor.stop();
  });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
        ...init.headers,
      },
    });
  return { supervisor, events, app, base, api };
}

/** A real webhook receiver on loopback answering `statuses[i]` to the i-th request (then 204). */
async function receiver(statuses: number[] = []) {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(statuses[received.length - 1] ?? 204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

/** Reads an SSE stream until `until(events)` with the one SSE reader (`readSse`); returns the parsed events. */
async function readStream(
  url: string,
  headers: Record<string, string>,
  until: (events: McpPipeEvent[]) => boolean,
  onOpen: () => unknown = () => {},
): Promise<McpPipeEvent[]> {
  const parsed = (frames: SseEvent[]) =>
    frames.filter((f) => f.data !== '').map((f) => JSON.parse(f.data) as McpPipeEvent);
  const frames = await readSse(url, {
    headers,
    until: (f) => until(parsed(f)),
    onOpen: async (res) => {
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      await onOpen();
    },
  });
  return parsed(frames);
}

const transitions = (events: McpPipeEvent[], upstream: string) =>
  events.flatMap((e) =>
    e.type === 'upstream.state_changed' && e.data.upstream === upstream
      ? [`${e.data.from}→${e.data.to}`]
      : [],
  );

describe('gateway events API', () => {
  it('SIGKILL of one stdio server: the stream shows available → recovering → available and the webhook gets the same events signed', async () => {
    const gw = await start([stdio('alpha', 'sup-basic.mjs'), stdio('beta', 'sup-basic.mjs')], {
      allowPrivate: true,
    });
    const rx = await receiver();
    const created = await gw.api('/api/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: rx.url, events: ['upstream.state_changed'] }),
    });
    expect(created.status).toBe(201);
    const { id, secret } = (await created.json()) as { id: string; secret: string };

    const servers = (await (await gw.api('/api/servers')).json()) as {
      servers: { name: string; phase: string }[];
    };
    expect(servers.servers.map((s) => [s.name, s.phase])).toEqual([
      ['alpha', 'available'],
      ['beta', 'available'],
    ]);
    const pid = gw.supervisor.get('alpha')!.pid!;
    const seen = await readStream(
      `${gw.base}/api/servers/stream`,
      { authorization: `Bearer ${TOKEN}` },
      (evs) => transitions(evs, 'alpha').includes('recovering→available'),
      () => process.kill(pid, 'SIGKILL'),
    );
    expect(transitions(seen, 'alpha')).toEqual(['available→recovering', 'recovering→available']);
    expect(transitions(seen, 'beta')).toEqual([]);
    const back = seen.find((e) => e.type === 'upstream.state_changed' && e.data.to === 'available')!;
    expect(back.data).toMatchObject({ tunnel: null, upstream: 'alpha', downtimeMs: expect.any(Number) });

    await waitFor(() => rx.received.length >= 2, { timeoutMs: 30_000 });
    const verifier = new Webhook(secret);
    const signed = rx.received.map((r) => verifier.verify(r.body, r.headers as Record<string, string>));
    expect(signed).toEqual(seen);
    const log = (await (await gw.api(`/api/webhooks/${id}/deliveries`)).json()) as {
      deliveries: { status: string; attempts: number }[];
    };
    expect(log.deliveries.map((d) => [d.status, d.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
    ]);

    // Last-Event-ID: a reconnecting client gets what it missed, from the buffer
    const resumed = await readStream(
      `${gw.base}/api/servers/stream`,
      { authorization: `Bearer ${TOKEN}`, 'last-event-id': seen[0]!.id },
      (evs) => evs.length >= 1,
    );
    expect(resumed[0]).toEqual(seen[1]);
  }, 90_000);

  it('answers 401 without the API token, 404 for an unknown server, and refuses a private webhook target', async () => {
    const gw = await start([stdio('alpha', 'sup-basic.mjs')]);
    expect((await fetch(`${gw.base}/api/servers`)).status).toBe(401);
    expect(
      (await fetch(`${gw.base}/api/servers`, { headers: { authorization: 'Bearer wrong' } })).status,
    ).toBe(401);
    expect((await gw.api('/api/servers/nope/tools')).status).toBe(404);
    // each refused with 400 and a message saying what to change, and nothing registered
    const refusals: [url: string, events: string[], error: string, says: string][] = [
      [
        'http://127.0.0.1:9/hook',
        ['tool.changed'],
        'MCPP_EVENTS_PRIVATE_TARGET',
        'start the gateway with MCPPIPE_WEBHOOKS_ALLOW_PRIVATE=1',
      ],
      // a tunnel event never happens in the gateway's own scope: refused, not accepted to wait forever
      [
        'https://hooks.example.com/x',
        ['tunnel.connected'],
        'MCPP_EVENTS_INVALID_WEBHOOK',
        'use: upstream.state_changed, tool.changed',
      ],
    ];
    for (const [url, events, error, says] of refusals) {
      const res = await gw.api('/api/webhooks', { method: 'POST', body: JSON.stringify({ url, events }) });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error, message: expect.stringContaining(says) });
    }
    expect(await (await gw.api('/api/webhooks')).json()).toEqual({ webhooks: [] });
    expect((await gw.api('/api/webhooks/wh_nope', { method: 'DELETE' })).status).toBe(404);
  }, 60_000);

  it('a tool whose description changes on list_changed raises tool.changed and, held, disappears until accepted', async () => {
    const gw = await start([stdio('docs', 'evt-rug-pull.mjs')], { holdChangedTools: true });
    const names = async () =>
      (
        (await gw.events.registry.request('docs', { method: 'tools/list', params: {} }))['tools'] as {
          name: string;
        }[]
      ).map((t) => t.name);
    expect(await names()).toEqual(['search', 'rug']);
    const changed = new Promise<McpPipeEvent>((resolve) =>
      gw.events.hub.subscribe((e) => e.type === 'tool.changed' && resolve(e)),
    );
    await gw.events.registry.request('docs', {
      method: 'tools/call',
      params: { name: 'rug', arguments: {} },
    });
    const event = await changed;
    expect(event.data).toMatchObject({ tunnel: null, upstream: 'docs', tool: 'search' });
    expect(await names()).toEqual(['rug']);
    await expect(
      gw.events.registry.request('docs', { method: 'tools/call', params: { name: 'search', arguments: {} } }),
    ).rejects.toThrow(/held until the owner accepts it/);
    const tools = (await (await gw.api('/api/servers/docs/tools')).json()) as {
      tools: { name: string; changed: boolean }[];
    };
    expect(tools.tools.map((t) => [t.name, t.changed])).toEqual([
      ['rug', false],
      ['search', true],
    ]);
    expect(gw.events.hub.buffered().filter((e) => e.type === 'tool.changed')).toHaveLength(1);
    const accepted = await gw.api('/api/servers/docs/tools/search/accept', { method: 'POST' });
    expect(accepted.status).toBe(200);
    expect(await names()).toEqual(['search', 'rug']);
  }, 60_000);
});
