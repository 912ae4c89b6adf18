/**
 * Capture of exchanges at the relay (issue 19 items 2, 5; DESIGN.md D2, D3) as real processes: the gateway with
 * `--tunnel-zone`, `mcppipe up --tunnel` aggregating two stdio upstreams, a zero-knowledge tunnel made with
 * `connectTunnel`, real SDK clients of both eras calling through the relay, and the capture API read with the
 * owner's API key: exchanges with their fields, redaction, the Live SSE stream, replay, per-tool stats, stars,
 * sampling under its call, owner scoping (404 for another account) and metadata-only zero-knowledge records.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { fixturePath, readSse, waitFor } from '@mcppipe/test-utils';
import type { RunningCli, SseEvent } from '@mcppipe/test-utils';
import { connectTunnel, forwardToLoopback } from '@mcppipe/tunnel';
import type { TunnelClient } from '@mcppipe/tunnel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcHeaders } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';
import { node, startTunnelCli, startTunnelGateway } from './tunnelStack.js';
import type { TunnelGateway } from './tunnelStack.js';

const ZONE = 'capture.test';
const TUNNEL = 'cap--alice';

interface Summary {
  id: string;
  at: string;
  caller: string | null;
  method: string | null;
  name: string | null;
  upstream: string | null;
  status: string | number;
  durationMs: number;
  requestBytes: number;
  responseBytes: number;
  replayOf?: string;
}

describe('capture at the relay (issue 19)', () => {
  let stack: TunnelGateway;
  let gw: RunningGateway;
  let cli: RunningCli;
  let zk: TunnelClient;
  let loopback: ReturnType<typeof forwardToLoopback>;
  let keys: Record<string, string>;

  const api = async (path: string, key: string | null = keys['alice']!, init: RequestInit = {}) => {
    const res = await fetch(`${gw.url}${path}`, {
      ...init,
      headers: {
        ...(key !== null && { authorization: `Bearer ${key}` }),
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
      },
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  };
  const list = async (query = '') =>
    (await api(`/api/tunnels/${TUNNEL}/exchanges${query}`)).body['exchanges'] as Summary[];
  const agentTransport = () =>
    new StreamableHTTPClientTransport(new URL(`${gw.url}/t/${TUNNEL}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${keys['agent']}` } },
    });

  beforeAll(async () => {
    stack = await startTunnelGateway({
      name: 'capture',
      zone: ZONE,
      accounts: { alice: 'alice pw!', bob: 'bob pw!' },
      keys: { alice: ['alice', 'laptop'], agent: ['alice', 'agent'], bob: ['bob', 'laptop'] },
    });
    ({ gw, keys } = stack);
    cli = await startTunnelCli({
      gateway: gw.url,
      apiKey: keys['alice']!,
      subdomain: 'cap',
      auth: 'api-key',
      stdio: { faults: node(fixturePath('agg-faults.mjs')), spare: node(fixturePath('agg-faults.mjs')) },
      timeoutMs: 30_000,
    });
    loopback = forwardToLoopback({ port: stack.upstream!.port });
    zk = connectTunnel({
      relayUrl: `${gw.url}/tunnel/connect`,
      apiKey: keys['alice']!,
      subdomain: 'zk',
      zeroKnowledge: true,
      metadata: { auth: 'api-key' },
      handler: loopback,
    });
    await zk.connected();
  }, 180_000);

  afterAll(async () => {
    await zk?.close();
    loopback?.close();
    await cli?.stop();
    const code = stack ? await stack.close() : 0;
    expect(code, gw?.stderr()).toBe(0);
  });

  it('lists a tools/call with caller, method, name, upstream, status, duration and bytes; values redacted', async () => {
    const client = new Client({ name: 'capture-e2e', version: '1' });
    await client.connect(agentTransport());
    await client.callTool({ name: 'faults__echo', arguments: { text: 'top secret value' } });
    await client.close();
    let call: Summary | undefined;
    await waitFor(
      async () =>
        (call = (await list('?method=tools/call')).find((e) => e.name === 'faults__echo')) !== undefined,
      {
        timeoutMs: 10_000,
      },
    );
    expect(call).toMatchObject({ caller: 'agent', method: 'tools/call', upstream: 'faults', status: 'ok' });
    expect(call!.id).toMatch(/^ex_/);
    expect(Date.parse(call!.at)).toBeGreaterThan(Date.now() - 120_000);
    expect(call!.durationMs).toBeGreaterThan(0);
    expect(call!.requestBytes).toBeGreaterThan(50);
    expect(call!.responseBytes).toBeGreaterThan(20);
    const detail = await api(`/api/tunnels/${TUNNEL}/exchanges/${call!.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: call!.id,
      request: { method: 'tools/call', params: { name: 'faults__echo', arguments: { text: '[redacted]' } } },
      response: { result: { content: [{ type: 'text', text: 'faults: top secret value' }] } },
      truncated: { request: false, response: false },
      children: [],
    });
    expect(JSON.stringify(detail.body['request'])).not.toContain('top secret');
  });

  it('classifies isError (HTTP 200, 2025-era SSE) and a JSON-RPC error code; filters by status and upstream', async () => {
    const client = new V1Client({ name: 'capture-v1', version: '1' });
    await client.connect(
      new V1Transport(new URL(`${gw.url}/t/${TUNNEL}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${keys['agent']}` } },
      }),
    );
    expect((await client.callTool({ name: 'faults__fail', arguments: {} })).isError).toBe(true);
    await expect(client.callTool({ name: 'spare__rpc_error', arguments: {} })).rejects.toThrow(
      /fixture rpc error/,
    );
    // names mcppipe does not know: an unknown prefix and an unknown tool of a known upstream (no phantom upstream)
    await expect(client.callTool({ name: 'nope__x', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(client.callTool({ name: 'spare__nope', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
    await waitFor(async () => (await list('?status=error')).some((e) => e.name === 'spare__rpc_error'), {
      timeoutMs: 10_000,
    });
    const isError = await list('?status=isError');
    expect(isError.map((e) => [e.name, e.status])).toEqual([['faults__fail', 'isError']]);
    expect((await list('?status=error')).find((e) => e.name === 'spare__rpc_error')?.status).toBe(-32099);
    expect((await list('?upstream=spare')).every((e) => e.upstream === 'spare')).toBe(true);
    expect((await list('?upstream=spare')).length).toBeGreaterThan(0);
    await waitFor(async () => (await list('?status=error')).some((e) => e.name === 'spare__nope'));
    const unknown = (await list('?status=error')).filter(
      (e) => e.name === 'nope__x' || e.name === 'spare__nope',
    );
    expect(unknown.map((e) => [e.name, e.upstream, e.status]).sort()).toEqual([
      ['nope__x', null, -32602],
      ['spare__nope', null, -32602],
    ]);
    expect(await list('?upstream=nope')).toEqual([]);
    expect((await api(`/api/tunnels/${TUNNEL}/exchanges?status=bad`)).status).toBe(400);
  });

  it('the Live SSE stream gets a new exchange', async () => {
    const client = new Client({ name: 'capture-live', version: '1' });
    const isEcho = (e: SseEvent) => e.data.includes('"name":"spare__echo"');
    try {
      const events = await readSse(`${gw.url}/api/tunnels/${TUNNEL}/exchanges/stream`, {
        headers: { authorization: `Bearer ${keys['alice']}` },
        until: (read) => read.some(isEcho),
        onOpen: async (res) => {
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toContain('text/event-stream');
          await client.connect(agentTransport());
          await client.callTool({ name: 'spare__echo', arguments: { text: 'live' } });
        },
        timeoutMs: 15_000,
      });
      const frame = events.find(isEcho)!;
      expect(frame.id).toMatch(/^ex_/);
      expect(frame.event).toBe('exchange');
      const data = JSON.parse(frame.data) as Summary;
      expect(data).toMatchObject({ method: 'tools/call', upstream: 'spare', status: 'ok', caller: 'agent' });
    } finally {
      await client.close();
    }
  });

  it('replay sends the edited request through the same tunnel and appears as a new exchange', async () => {
    const original = (await list('?method=tools/call')).find((e) => e.name === 'faults__echo')!;
    const edited = {
      jsonrpc: '2.0',
      id: 99,
      method: 'tools/call',
      params: { name: 'faults__echo', arguments: { text: 'replayed copy' } },
    };
    const replay = await api(`/api/tunnels/${TUNNEL}/exchanges/${original.id}/replay`, keys['alice']!, {
      method: 'POST',
      body: JSON.stringify({ request: edited }),
    });
    expect(replay.status, JSON.stringify(replay.body)).toBe(201);
    expect(replay.body).toMatchObject({
      replayOf: original.id,
      name: 'faults__echo',
      status: 'ok',
      caller: 'laptop',
    });
    expect(replay.body['id']).not.toBe(original.id);
    const newest = (await list())[0]!;
    expect(newest.id).toBe(replay.body['id']);
    const detail = await api(`/api/tunnels/${TUNNEL}/exchanges/${newest.id}`);
    expect(JSON.stringify(detail.body['response'])).toContain('faults: replayed copy');
    const again = await api(`/api/tunnels/${TUNNEL}/exchanges/${original.id}/replay`, keys['alice']!, {
      method: 'POST',
      body: '{}',
    });
    expect(again.status).toBe(201);
    const invalid = await api(`/api/tunnels/${TUNNEL}/exchanges/${original.id}/replay`, keys['alice']!, {
      method: 'POST',
      body: JSON.stringify({ request: 'not a message' }),
    });
    expect([invalid.status, invalid.body['error']]).toEqual([400, 'bad_request']);
    const second = await api(`/api/tunnels/${TUNNEL}/exchanges/${again.body['id'] as string}`);
    expect(JSON.stringify(second.body['response'])).toContain('faults: top secret value'); // the original values
    // the Inspector's copy (values redacted) with only its id edited replays the original values, not "[redacted]"
    const shown = (await api(`/api/tunnels/${TUNNEL}/exchanges/${original.id}`)).body['request'] as Record<
      string,
      unknown
    >;
    expect(JSON.stringify(shown)).toContain('[redacted]');
    const fixed = await api(`/api/tunnels/${TUNNEL}/exchanges/${original.id}/replay`, keys['alice']!, {
      method: 'POST',
      body: JSON.stringify({ request: { ...shown, id: 914 } }),
    });
    expect(fixed.status).toBe(201);
    const third = await api(`/api/tunnels/${TUNNEL}/exchanges/${fixed.body['id'] as string}`);
    expect(JSON.stringify(third.body['response'])).toContain('faults: top secret value');
    expect(JSON.stringify(third.body['response'])).not.toContain('[redacted]');
  });

  it('attaches a sampling request and its answer under the call (2025-era client)', async () => {
    const client = new V1Client(
      { name: 'capture-sampling', version: '1' },
      { capabilities: { sampling: {} } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'sampled answer' },
      model: 'test-model',
    }));
    await client.connect(
      new V1Transport(new URL(`${gw.url}/t/${TUNNEL}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${keys['agent']}` } },
      }),
    );
    const result = await client.callTool({ name: 'faults__sample', arguments: { prompt: 'hello' } });
    expect(JSON.stringify(result)).toContain('sampled answer');
    await client.close();
    let call: Summary | undefined;
    await waitFor(
      async () => (call = (await list()).find((e) => e.name === 'faults__sample')) !== undefined,
      {
        timeoutMs: 10_000,
      },
    );
    const detail = await api(`/api/tunnels/${TUNNEL}/exchanges/${call!.id}`);
    const children = detail.body['children'] as { method: string; request: unknown; response: unknown }[];
    expect(children).toHaveLength(1);
    expect(children[0]!.method).toBe('sampling/createMessage');
    // capture of values is off (the default): the model's answer and the messages sent to it are redacted like the
    // call's arguments, the answer's shape (role, model) kept
    expect(children[0]!.response).toMatchObject({
      result: { role: 'assistant', model: 'test-model', content: { type: '[redacted]', text: '[redacted]' } },
    });
    expect(JSON.stringify(children[0]!.request)).not.toContain('hello');
    expect(JSON.stringify(children)).not.toContain('sampled answer');
  });

  it('stats per tool over 1 h; a star pins a tool first', async () => {
    const stats = await api(`/api/tunnels/${TUNNEL}/stats?window=1h`);
    expect(stats.status).toBe(200);
    const tools = stats.body['tools'] as Array<Record<string, unknown>>;
    const echo = tools.find((t) => t['name'] === 'faults__echo')!;
    expect(echo).toMatchObject({
      upstream: 'faults',
      errors: 0,
      errorRate: 0,
      changed: false,
      pinned: false,
    });
    expect(echo['calls']).toBe(4); // the agent's call and three replays
    expect(echo['p50']).toBeGreaterThan(0);
    expect(echo['p99']).toBeGreaterThanOrEqual(echo['p50'] as number);
    expect(tools.find((t) => t['name'] === 'faults__fail')).toMatchObject({
      calls: 1,
      errors: 1,
      errorRate: 1,
    });
    expect(tools.find((t) => t['name'] === 'spare__rpc_error')).toMatchObject({ calls: 1, errors: 1 });
    // a call to a name mcppipe does not know makes no Tools row (and no upstream group)
    expect(tools.filter((t) => t['name'] === 'nope__x' || t['name'] === 'spare__nope')).toEqual([]);
    expect(tools.some((t) => t['upstream'] === 'nope')).toBe(false);
    expect(
      (await api(`/api/tunnels/${TUNNEL}/stars/spare__echo`, keys['alice']!, { method: 'PUT' })).status,
    ).toBe(204);
    const starred = (await api(`/api/tunnels/${TUNNEL}/stats?window=24h`)).body;
    expect(starred['window']).toBe('24h');
    expect((starred['tools'] as Array<Record<string, unknown>>)[0]).toMatchObject({
      name: 'spare__echo',
      pinned: true,
    });
    expect(
      (await api(`/api/tunnels/${TUNNEL}/stars/spare__echo`, keys['alice']!, { method: 'DELETE' })).status,
    ).toBe(204);
    expect((await api(`/api/tunnels/${TUNNEL}/stats?window=7d`)).status).toBe(400);
  });

  it('another account gets 404; no credentials 401; an unknown tunnel 404', async () => {
    const id = (await list())[0]!.id;
    for (const path of [
      `/api/tunnels/${TUNNEL}/exchanges`,
      `/api/tunnels/${TUNNEL}/exchanges/${id}`,
      `/api/tunnels/${TUNNEL}/stats`,
    ]) {
      const bob = await api(path, keys['bob']!);
      expect(bob.status, path).toBe(404);
      expect(bob.body['error']).toBe('not_found');
    }
    const replay = await api(`/api/tunnels/${TUNNEL}/exchanges/${id}/replay`, keys['bob']!, {
      method: 'POST',
      body: '{}',
    });
    expect(replay.status).toBe(404);
    expect((await api(`/api/tunnels/${TUNNEL}/stars/x`, keys['bob']!, { method: 'PUT' })).status).toBe(404);
    const anonymous = await api(`/api/tunnels/${TUNNEL}/exchanges`, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body['error']).toBe('unauthorized');
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="mcppipe-api"');
    expect((await api('/api/tunnels/nope--alice/exchanges')).status).toBe(404);
    expect((await api(`/api/tunnels/${TUNNEL}/exchanges/ex_missing`)).status).toBe(404);
  });

  it('a zero-knowledge tunnel records metadata only: no bodies, no method', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const res = await fetch(`${gw.url}/t/zk--alice/mcp`, {
      method: 'POST',
      headers: rpcHeaders(keys['agent']),
      body,
    });
    expect(res.status).toBe(200);
    const answer = await res.text();
    let rows: Summary[] = [];
    await waitFor(
      async () =>
        (rows = (await api('/api/tunnels/zk--alice/exchanges')).body['exchanges'] as Summary[]).length > 0,
      {
        timeoutMs: 10_000,
      },
    );
    expect(rows[0]).toMatchObject({
      caller: 'agent',
      method: null,
      name: null,
      upstream: null,
      status: 'ok',
    });
    expect(rows[0]!.requestBytes).toBe(Buffer.byteLength(body));
    expect(rows[0]!.responseBytes).toBe(Buffer.byteLength(answer));
    const detail = await api(`/api/tunnels/zk--alice/exchanges/${rows[0]!.id}`);
    expect(detail.body).toMatchObject({ request: null, response: null, children: [] });
    expect(JSON.stringify(detail.body)).not.toContain('tools/list');
  });

  it('records refused requests (401, 503 tunnel_offline) with the client address, at most a burst of 10 per tunnel', async () => {
    const post = (path: string, key?: string) =>
      fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: rpcHeaders(key),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }).then(async (r) => (await r.text(), r.status));
    expect(await post(`/t/${TUNNEL}/mcp`)).toBe(401); // no credentials
    expect(await post(`/t/${TUNNEL}/mcp`, keys['bob'])).toBe(401); // another account's key
    const refusals = async () => (await list()).filter((e) => e.status === 'http_401');
    await waitFor(async () => (await refusals()).length === 2, { timeoutMs: 10_000 });
    const [row] = await refusals();
    expect(row).toMatchObject({ caller: 'refused (127.0.0.1)', method: null, name: null, upstream: null });
    const detail = await api(`/api/tunnels/${TUNNEL}/exchanges/${row!.id}`);
    expect(detail.body).toMatchObject({ request: null, truncated: { request: true, response: false } });
    expect(String(detail.body['response'])).toContain('no valid credentials');
    // a flood of refused requests cannot push the owner's exchanges out of the ring
    for (let i = 0; i < 25; i++) expect(await post(`/t/${TUNNEL}/mcp`)).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    expect((await refusals()).length).toBeGreaterThanOrEqual(10);
    expect((await refusals()).length).toBeLessThanOrEqual(12);
    // the zero-knowledge tunnel goes offline: 503 tunnel_offline, recorded for it
    await zk.close();
    expect(await post('/t/zk--alice/mcp', keys['agent'])).toBe(503);
    let offline: Summary[] = [];
    await waitFor(
      async () =>
        (offline = ((await api('/api/tunnels/zk--alice/exchanges')).body['exchanges'] as Summary[]).filter(
          (e) => e.status === 'http_503',
        )).length === 1,
      { timeoutMs: 10_000 },
    );
    expect(offline[0]!.caller).toBe('refused (127.0.0.1)');
  });
});
