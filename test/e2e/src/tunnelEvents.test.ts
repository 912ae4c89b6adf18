/**
 * Issue 18 through a tunnel (DESIGN.md E1–E4): a real gateway process with `--tunnel-zone`, real `mcppipe up
 * --tunnel` processes with real stdio upstreams, the owner's API key on `/api/tunnels*`, a real webhook receiver
 * checking Standard Webhooks signatures with the scheme's reference algorithm (HMAC-SHA256 over `id.timestamp.body`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixturePath, readSse, waitFor } from '@mcppipe/test-utils';
import type { RunningCli, SseEvent } from '@mcppipe/test-utils';
import { connectTunnel } from '@mcppipe/tunnel';
import type { TunnelClient } from '@mcppipe/tunnel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from './gatewayProcess.js';
import { node, scopeRoutes, startTunnelCli, startTunnelGateway } from './tunnelStack.js';
import type { TunnelGateway } from './tunnelStack.js';

interface Evt {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

const ADMIN = 'admin-token-for-the-e2e-events-suite-0123456789';
const TUNNEL = 'laptop--alice';

/** The Standard Webhooks reference check: `v1,` + base64 HMAC-SHA256 keyed with the secret's base64 part. */
function verifySignature(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = String(headers['webhook-id']);
  const ts = String(headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest();
  return String(headers['webhook-signature'])
    .split(' ')
    .some((s) => {
      const sig = Buffer.from(s.replace(/^v1,/, ''), 'base64');
      return sig.length === expected.length && timingSafeEqual(sig, expected);
    });
}

describe('events through a tunnel (issue 18)', () => {
  let stack: TunnelGateway;
  let strict: TunnelGateway | undefined;
  let gw: RunningGateway;
  let cli: RunningCli;
  let solo: RunningCli;
  let keys: Record<string, string>;
  const cleanup: (() => Promise<unknown>)[] = [];
  const auth = (who: 'alice' | 'bob' | 'admin') => ({
    authorization: `Bearer ${who === 'admin' ? ADMIN : keys[who]!}`,
  });
  const api = (path: string, who: 'alice' | 'bob' | 'admin' = 'alice', init: RequestInit = {}) =>
    fetch(`${gw.url}${path}`, {
      ...init,
      headers: {
        ...auth(who),
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
        ...(init.headers as object),
      },
    });

  /**
   * Reads a tunnel's SSE stream until `until(events)` with the one SSE reader (`readSse`); `onOpen` runs once the
   * headers arrived. Each frame's `id:` and `event:` must be its event's.
   */
  async function readStream(
    headers: Record<string, string>,
    until: (events: Evt[]) => boolean,
    onOpen: () => unknown = () => {},
  ): Promise<Evt[]> {
    const parsed = (frames: SseEvent[]) =>
      frames.filter((f) => f.data !== '').map((f) => ({ frame: f, event: JSON.parse(f.data) as Evt }));
    const frames = await readSse(`${gw.url}/api/tunnels/${TUNNEL}/upstreams/stream`, {
      headers: { ...auth('alice'), ...headers },
      until: (f) => until(parsed(f).map((p) => p.event)),
      onOpen: async (res) => {
        expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
        await onOpen();
      },
      timeoutMs: 45_000,
    });
    return parsed(frames).map(({ frame, event }) => {
      expect([frame.id, frame.event]).toEqual([event.id, event.type]);
      return event;
    });
  }

  async function agent(): Promise<Client> {
    const c = new Client({ name: 'events-e2e', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/t/${TUNNEL}/mcp`)));
    cleanup.push(() => c.close());
    return c;
  }

  beforeAll(async () => {
    stack = await startTunnelGateway({
      name: 'tunnel-events',
      accounts: { alice: 'alice pw 123', bob: 'bob pw 123' },
      keys: { alice: ['alice', 'k'], bob: ['bob', 'k'] },
      env: {
        MCPPIPE_API_TOKEN: ADMIN,
        MCPPIPE_WEBHOOKS_ALLOW_PRIVATE: '1',
        MCPPIPE_TEST_WEBHOOK_RETRY_MS: '300,300,300',
      },
    });
    ({ gw, keys } = stack);
    const tunnel = { gateway: gw.url, apiKey: keys['alice']!, auth: 'none', timeoutMs: 30_000 } as const;
    [cli, solo] = await Promise.all([
      startTunnelCli({
        ...tunnel,
        subdomain: 'laptop',
        stdio: {
          probe: node(fixturePath('e2e-probe.mjs')),
          docs: node(fixturePath('evt-rug-pull.mjs')),
        },
        flags: ['--hold-changed-tools'],
      }),
      startTunnelCli({ ...tunnel, subdomain: 'solo', stdio: { only: node(fixturePath('e2e-probe.mjs')) } }),
    ]);
  }, 180_000);

  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await Promise.allSettled([cli?.stop(), solo?.stop()]);
    await Promise.allSettled([stack?.close(), strict?.close()]);
  });

  it("lists the owner's tunnels; the single-upstream tunnel has an empty upstream list", async () => {
    await waitFor(
      async () => {
        const { tunnels } = (await (await api('/api/tunnels')).json()) as {
          tunnels: { upstreams: number }[];
        };
        return tunnels.length === 2 && tunnels.some((t) => t.upstreams === 2);
      },
      { timeoutMs: 15_000 },
    );
    const { tunnels } = (await (await api('/api/tunnels')).json()) as { tunnels: Record<string, unknown>[] };
    expect(
      tunnels.map((t) => [t['id'], t['connected'], t['upstreams'], t['auth'], t['zeroKnowledge']]),
    ).toEqual([
      ['laptop--alice', true, 2, 'none', false],
      ['solo--alice', true, 0, 'none', false],
    ]);
    expect(await (await api('/api/tunnels/solo--alice/upstreams')).json()).toEqual({ upstreams: [] });
    const { upstreams } = (await (await api(`/api/tunnels/${TUNNEL}/upstreams`)).json()) as {
      upstreams: { name: string; phase: string; lastError: unknown; lastChange: string }[];
    };
    expect(upstreams.map((u) => [u.name, u.phase, u.lastError])).toEqual([
      ['docs', 'available', null],
      ['probe', 'available', null],
    ]);
    expect(Number.isNaN(Date.parse(upstreams[0]!.lastChange))).toBe(false);
  });

  it('SIGKILL of one upstream: the stream shows available → recovering → available, the webhook gets the same events signed after two failed attempts, and Last-Event-ID resumes', async () => {
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    let attempts = 0;
    const server: Server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        attempts += 1;
        if (attempts <= 2) return void res.writeHead(503).end(); // down for the first two attempts
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise((r) => server.close(r)));
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const created = await api(`/api/tunnels/${TUNNEL}/webhooks`, 'alice', {
      method: 'POST',
      body: JSON.stringify({ url: hook, events: ['upstream.state_changed'] }),
    });
    expect(created.status).toBe(201);
    const { id: wid, secret } = (await created.json()) as { id: string; secret: string };

    const c = await agent();
    const pidText = (await c.callTool({ name: 'probe__pid', arguments: {} })) as {
      content: { text: string }[];
    };
    const pid = Number(pidText.content[0]!.text);
    expect(pid).toBeGreaterThan(0);
    const mine = (events: Evt[]) =>
      events
        .filter((e) => e.type === 'upstream.state_changed' && e.data['upstream'] === 'probe')
        .map((e) => `${String(e.data['from'])}→${String(e.data['to'])}`);
    const events = await readStream(
      {},
      (ev) => mine(ev).includes('recovering→available'),
      () => process.kill(pid, 'SIGKILL'),
    );
    const seen = events.filter((e) => e.type === 'upstream.state_changed' && e.data['upstream'] === 'probe');
    expect(mine(events)).toEqual(['available→recovering', 'recovering→available']);
    expect(seen.every((e) => e.data['tunnel'] === TUNNEL)).toBe(true);
    expect(seen[1]!.data['downtimeMs']).toEqual(expect.any(Number));

    // the receiver gets the same events, signed, the first on the third attempt
    await waitFor(() => received.length >= 2, { timeoutMs: 30_000, message: 'two deliveries' });
    for (const r of received) expect(verifySignature(secret, r.headers, r.body)).toBe(true);
    const bodies = received.map((r) => JSON.parse(r.body) as Evt);
    expect(bodies.map((b) => b.id)).toEqual(seen.map((e) => e.id));
    expect(received.map((r) => r.headers['webhook-id'])).toEqual(seen.map((e) => e.id));
    const log = (await (await api(`/api/tunnels/${TUNNEL}/webhooks/${wid}/deliveries`)).json()) as {
      deliveries: { eventId: string; status: string; attempts: number; statusCode: number }[];
    };
    const first = log.deliveries.find((d) => d.eventId === seen[0]!.id)!;
    expect(first).toMatchObject({ status: 'delivered', attempts: 3, statusCode: 204 });

    // Last-Event-ID: a client that saw the first transition gets the second next
    const resumed = await readStream({ 'last-event-id': seen[0]!.id }, (ev) => ev.length >= 1);
    expect(resumed[0]!.id).toBe(seen[1]!.id);
  }, 90_000);

  it("another account's key gets 404 on every route of the tunnel; no key gets 401", async () => {
    for (const { method, path, body } of scopeRoutes(TUNNEL, { upstream: 'probe', tool: 'docs__search' })) {
      const res = await api(path, 'bob', { method, ...(body && { body }) });
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(((await res.json()) as { error: string }).error).toBe('not_found');
    }
    expect(await (await api('/api/tunnels', 'bob')).json()).toEqual({ tunnels: [] });
    const anon = await fetch(`${gw.url}/api/tunnels`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toBe('Bearer realm="mcppipe-api"');
    // the admin token keeps the gateway's own API and does not open tunnels; a key does not open /api/servers
    expect((await api('/api/servers', 'admin')).status).toBe(200);
    expect((await api('/api/tunnels', 'admin')).status).toBe(403);
    expect((await api('/api/servers', 'alice')).status).toBe(403);
    // the scope is the relay's own: the public side of the tunnel never reaches it
    expect(
      (await fetch(`${gw.url}/t/${TUNNEL}/.mcppipe/upstreams`, { headers: { 'x-mcppipe-relay': '1' } }))
        .status,
    ).toBe(404);
  });

  it('tool.changed through the tunnel: with --hold-changed-tools the tool leaves tools/list until accepted', async () => {
    const c = await agent();
    const names = async () => (await c.listTools()).tools.map((t) => t.name);
    expect(await names()).toContain('docs__search');
    await c.callTool({ name: 'docs__search', arguments: { q: 'x' } });
    type Row = { name: string; upstream: string; calls: number; changed: boolean };
    const stats = async () =>
      ((await (await api(`/api/tunnels/${TUNNEL}/stats?window=1h`)).json()) as { tools: Row[] }).tools;
    const row = async (name: string) => (await stats()).find((t) => t.name === name);
    await waitFor(async () => (await row('docs__search'))?.calls === 1, { timeoutMs: 15_000 });
    expect(await row('docs__search')).toMatchObject({ upstream: 'docs', changed: false });
    const before = (await (await api(`/api/tunnels/${TUNNEL}/tools`)).json()) as {
      hold: boolean;
      tools: { name: string; changed: boolean; upstream: string; pinnedAt: string | null }[];
    };
    expect(before.hold).toBe(true);
    expect(before.tools.find((t) => t.name === 'docs__search')).toMatchObject({
      upstream: 'docs',
      changed: false,
    });
    const events = await readStream(
      {},
      (ev) => ev.some((e) => e.type === 'tool.changed'),
      () => c.callTool({ name: 'docs__rug', arguments: {} }),
    );
    const changed = events.find((e) => e.type === 'tool.changed')!;
    expect(changed.data).toMatchObject({ tunnel: TUNNEL, upstream: 'docs', tool: 'search' });
    expect(changed.data['before']).not.toBe(changed.data['after']);
    await waitFor(async () => !(await names()).includes('docs__search'), { timeoutMs: 15_000 });
    const held = (await (await api(`/api/tunnels/${TUNNEL}/tools`)).json()) as {
      tools: { name: string; changed: boolean }[];
    };
    expect(held.tools.find((t) => t.name === 'docs__search')?.changed).toBe(true);
    // the Tools tab's stats carry the pins' marker (issue 19): on the called tool's row, nowhere else
    const marked = await stats();
    expect(marked.find((t) => t.name === 'docs__search')).toMatchObject({ calls: 1, changed: true });
    expect(marked.filter((t) => t.changed).map((t) => t.name)).toEqual(['docs__search']);
    const accepted = await api(`/api/tunnels/${TUNNEL}/tools/docs__search/accept`, 'alice', {
      method: 'POST',
    });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ name: 'docs__search', upstream: 'docs', changed: false });
    await waitFor(async () => (await names()).includes('docs__search'), { timeoutMs: 15_000 });
    expect(await row('docs__search')).toMatchObject({ calls: 1, changed: false });
  }, 60_000);

  it("the Settings' holdChangedTools reaches mcppipe up: off, a changed tool stays listed and callable; on, it leaves tools/list at once", async () => {
    const c = await agent();
    const names = async () => (await c.listTools()).tools.map((t) => t.name);
    const settings = `/api/tunnels/${TUNNEL}/settings`;
    const hold = async () =>
      ((await (await api(`/api/tunnels/${TUNNEL}/tools`)).json()) as { hold: boolean }).hold;
    const changed = async () =>
      (
        (await (await api(`/api/tunnels/${TUNNEL}/tools`)).json()) as {
          tools: { name: string; changed: boolean }[];
        }
      ).tools.find((t) => t.name === 'docs__search')?.changed;
    // the CLI runs with --hold-changed-tools: the settings say so before the owner stored anything
    expect(await (await api(settings)).json()).toMatchObject({ holdChangedTools: true });
    const off = await api(settings, 'alice', {
      method: 'PUT',
      body: JSON.stringify({ holdChangedTools: false }),
    });
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({ holdChangedTools: false });
    await waitFor(async () => (await hold()) === false, {
      timeoutMs: 10_000,
      message: 'the CLI took hold off',
    });
    await c.callTool({ name: 'docs__rug', arguments: {} });
    await waitFor(async () => (await changed()) === true, {
      timeoutMs: 15_000,
      message: 'docs__search changed',
    });
    expect(await names()).toContain('docs__search');
    expect(await c.callTool({ name: 'docs__search', arguments: { q: 'y' } })).toMatchObject({
      content: [{ type: 'text', text: 'found y' }],
    });
    const on = await api(settings, 'alice', {
      method: 'PUT',
      body: JSON.stringify({ holdChangedTools: true }),
    });
    expect(on.status).toBe(200);
    await waitFor(async () => !(await names()).includes('docs__search'), {
      timeoutMs: 15_000,
      message: 'docs__search held back',
    });
    // held: gone from the list, so the aggregator does not route it
    await expect(c.callTool({ name: 'docs__search', arguments: { q: 'z' } })).rejects.toThrow(
      'Unknown tool: "docs__search"',
    );
    expect(
      (await api(`/api/tunnels/${TUNNEL}/tools/docs__search/accept`, 'alice', { method: 'POST' })).status,
    ).toBe(200);
    await waitFor(async () => (await names()).includes('docs__search'), { timeoutMs: 15_000 });
  }, 60_000);

  it('refuses a private-address webhook target when the operator has not allowed them', async () => {
    strict = await startTunnelGateway({
      name: 'tunnel-events-strict',
      accounts: { carol: 'carol pw 123' },
      keys: { carol: ['carol'] },
      servers: { modern: { url: stack.upstream!.url('/mcp') } },
    });
    const key = strict.keys['carol']!;
    const base = strict.gw.url;
    const tunnel: TunnelClient = connectTunnel({
      relayUrl: `${base}/tunnel/connect`,
      apiKey: key,
      subdomain: 'web',
      handler: (_req, res) => res.writeHead(404).end(),
    });
    cleanup.push(() => tunnel.close());
    await waitFor(() => tunnel.publicUrl !== undefined, { timeoutMs: 15_000 });
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.1.2.3/hook', 'http://[::1]:9/hook']) {
      const res = await fetch(`${base}/api/tunnels/web--carol/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, events: ['upstream.state_changed'] }),
      });
      expect([url, res.status]).toEqual([url, 400]);
      expect(((await res.json()) as { error: string }).error).toBe('MCPP_EVENTS_PRIVATE_TARGET');
    }
  }, 90_000);
});
