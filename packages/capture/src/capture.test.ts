import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  BoundedRing,
  ExchangeCapture,
  HISTOGRAM_BINS,
  ToolStats,
  binOf,
  classifyStatus,
  parseExchange,
  percentiles,
  redactMessage,
  redactValue,
  replayRequestHeaders,
  restoreRedacted,
  tapExchange,
  upstreamOf,
} from './index.js';
import type { CapturedBody, ExchangeSummary, RawExchange } from './index.js';

const body = (text: string, cap = 64 * 1024): CapturedBody => {
  const b = Buffer.from(text);
  return { bytes: b.length, truncated: b.length > cap, chunks: [b.subarray(0, cap)] };
};
const call = (name: string, args: unknown, id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const result = (r: unknown, id = 1) => JSON.stringify({ jsonrpc: '2.0', id, result: r });
const sse = (...messages: string[]) =>
  messages.map((m, i) => `event: message\nid: ${i}\ndata: ${m}\n\n`).join('');

function raw(request: string, response: string, extra: Partial<RawExchange> = {}): RawExchange {
  return {
    caller: 'ci key',
    zeroKnowledge: false,
    startedAt: Date.parse('2026-12-01T10:00:00Z'),
    durationMs: 12.345,
    httpStatus: 200,
    contentType: 'application/json',
    sessionId: undefined,
    replayHeaders: {},
    request: body(request),
    response: body(response),
    ...extra,
  };
}

describe('redaction', () => {
  it('replaces values by placeholders keeping keys and types', () => {
    expect(
      redactValue({ path: '/etc/passwd', depth: 2, deep: true, none: null, tags: ['a', 1], o: { k: 'v' } }),
    ).toEqual({
      path: '[redacted]',
      depth: 0,
      deep: false,
      none: null,
      tags: ['[redacted]', 0],
      o: { k: '[redacted]' },
    });
  });

  it('redacts only params.arguments of a request', () => {
    const m = JSON.parse(call('fs__read', { path: '/secret' })) as unknown;
    expect(redactMessage(m)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'fs__read', arguments: { path: '[redacted]' } },
    });
  });

  it('keeps values when capture of values is on, redacts them by default', () => {
    const capture = new ExchangeCapture();
    const a = capture.record('t', raw(call('fs__read', { path: '/secret' }), result({ content: [] })))!;
    const b = capture.record(
      't',
      raw(call('fs__read', { path: '/secret' }), result({ content: [] }), { captureValues: true }),
    )!;
    expect(JSON.stringify(capture.get('t', a.id)!.request)).not.toContain('/secret');
    expect(capture.get('t', a.id)!.request).toMatchObject({ params: { arguments: { path: '[redacted]' } } });
    expect(capture.get('t', b.id)!.request).toMatchObject({ params: { arguments: { path: '/secret' } } });
    expect(capture.replaySource('t', a.id)!.body).toBe(call('fs__read', { path: '/secret' }));
  });
});

describe('status classification', () => {
  it('ok, JSON-RPC error code, http_<code>', () => {
    expect(classifyStatus(200, { result: { content: [] } })).toBe('ok');
    expect(classifyStatus(200, { error: { code: -32602, message: 'x' } })).toBe(-32602);
    expect(classifyStatus(503, { error: { code: -32000, message: 'x' } })).toBe(-32000);
    expect(classifyStatus(502, undefined)).toBe('http_502');
    expect(classifyStatus(202, undefined)).toBe('ok');
  });

  it('isError result arriving as HTTP 200 in JSON', () => {
    const p = parseExchange(raw(call('fs__read', {}), result({ content: [], isError: true })));
    expect(p).toMatchObject({ status: 'isError', method: 'tools/call', name: 'fs__read', upstream: 'fs' });
  });

  it('isError result arriving as HTTP 200 over SSE (after a progress notification)', () => {
    const progress = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progress: 1 },
    });
    const p = parseExchange(
      raw(
        call('echo', {}, 7),
        sse(progress, result({ content: [{ type: 'text', text: 'no' }], isError: true }, 7)),
        {
          contentType: 'text/event-stream',
        },
      ),
    );
    expect(p.status).toBe('isError');
    expect(p.response).toMatchObject({ id: 7, result: { isError: true } });
    expect(p.upstream).toBeNull(); // a single-upstream name is not namespaced
    const sniffed = parseExchange(
      raw(call('echo', {}, 7), sse(result({ isError: true }, 7)), { contentType: undefined }),
    );
    expect(sniffed.status).toBe('isError'); // the content type is unknown: the body is read as SSE
  });

  it('a JSON-RPC error over SSE is its code', () => {
    const err = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'unknown tool' } });
    expect(parseExchange(raw(call('x__y', {}), sse(err), { contentType: 'text/event-stream' })).status).toBe(
      -32602,
    );
  });
});

describe('one parse per body (R10)', () => {
  it('a plain JSON answer is classified without parsing it and parsed when its detail is read', () => {
    const capture = new ExchangeCapture();
    const lazy = parseExchange(raw(call('fs__read', {}, 3), result({ content: [] }, 3)), {
      lazyResponse: true,
    });
    expect(lazy).toMatchObject({
      status: 'ok',
      responseDeferred: true,
      response: undefined,
      name: 'fs__read',
    });
    expect(lazy.requestText).toBe(call('fs__read', {}, 3));
    const s = capture.record('t', raw(call('fs__read', { p: 'v' }, 3), result({ content: [] }, 3)))!;
    expect(s).toMatchObject({ status: 'ok', upstream: 'fs' });
    expect(capture.get('t', s.id)).toMatchObject({
      request: { id: 3, params: { arguments: { p: '[redacted]' } } },
      response: { jsonrpc: '2.0', id: 3, result: { content: [] } },
      truncated: { request: false, response: false },
      children: [],
    });
    const failed = capture.record(
      't',
      raw(call('fs__read', {}), result({ content: [] }), { httpStatus: 502 }),
    )!;
    expect(failed.status).toBe('http_502');
  });

  it('an error, an isError or an escape in a JSON answer is parsed at once (the status depends on it)', () => {
    const capture = new ExchangeCapture();
    const escaped = '{"jsonrpc":"2.0","id":1,"\\u0065rror":{"code":-32001,"message":"x"}}';
    expect(capture.record('t', raw(call('a__b', {}), escaped))!.status).toBe(-32001);
    const untyped = raw(call('a__b', {}), result({ content: [], isError: true }), { contentType: undefined });
    expect(capture.record('t', untyped)!.status).toBe('isError');
    expect(
      parseExchange(raw(call('a__b', {}), result({ isError: true })), { lazyResponse: true }),
    ).toMatchObject({
      status: 'isError',
      response: { result: { isError: true } },
    });
  });

  it('a plain name has no upstream, a namespaced one has (no exception on the way)', () => {
    expect(upstreamOf('echo')).toBeNull();
    expect(upstreamOf('__x')).toBeNull();
    expect(upstreamOf('Bad__x')).toBeNull();
    expect(upstreamOf('fs__read')).toBe('fs');
  });
});

describe('caps', () => {
  it('keeps at most the cap of each body and flags truncation; sizes count every byte', async () => {
    const capture = new ExchangeCapture({ bodyCapBytes: 1024 });
    const big = call('fs__write', { text: 'x'.repeat(5000) });
    const server = http.createServer((req, res) => {
      capture.tap('t', { req, res }, { caller: null, zeroKnowledge: false });
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(result({ content: [{ type: 'text', text: 'y'.repeat(3000) }] }).slice(0, 100));
        res.end(result({ content: [{ type: 'text', text: 'y'.repeat(3000) }] }).slice(100));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const seen = new Promise<ExchangeSummary>((r) => capture.subscribe('t', r));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, {
      method: 'POST',
      body: big,
    });
    const text = await res.text();
    const summary = await seen;
    server.close();
    expect(summary.requestBytes).toBe(Buffer.byteLength(big));
    expect(summary.responseBytes).toBe(Buffer.byteLength(text));
    const detail = capture.get('t', summary.id)!;
    expect(detail.truncated).toEqual({ request: true, response: true });
    expect(detail.request).toBeNull(); // a cut request cannot be redacted: not kept
    expect(typeof detail.response).toBe('string');
    expect((detail.response as string).length).toBe(1024);
    expect(summary.method).toBeNull();
  });

  it('tapExchange records after the response closed, on a later turn', async () => {
    const order: string[] = [];
    const server = http.createServer((req, res) => {
      tapExchange({ req, res }, { caller: 'k', zeroKnowledge: true }, (r) => {
        order.push('recorded');
        expect(r.request.chunks).toEqual([]);
        expect(r.request.bytes).toBe(3);
      });
      req.resume();
      req.on('end', () => {
        res.end('ok!');
        order.push('sent');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    await (
      await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        method: 'POST',
        body: 'abc',
      })
    ).text();
    await new Promise((r) => setTimeout(r, 50));
    server.close();
    expect(order).toEqual(['sent', 'recorded']);
  });
});

describe('ExchangeCapture.tap', () => {
  it('records a teed exchange with its context (values on, replay of) after the response, parsed once', async () => {
    const capture = new ExchangeCapture();
    const server = http.createServer((req, res) => {
      capture.tap(
        't',
        { req, res },
        { caller: 'ci', zeroKnowledge: false, captureValues: true, replayOf: 'ex_1' },
      );
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(result({ content: [] }, 5).slice(0, 10));
        res.end(Buffer.from(result({ content: [] }, 5).slice(10)));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    await (
      await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        method: 'POST',
        body: call('fs__read', { path: '/x' }, 5),
      })
    ).text();
    for (let i = 0; i < 50 && capture.list('t').length === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    server.close();
    const [s] = capture.list('t');
    expect(s).toMatchObject({
      caller: 'ci',
      replayOf: 'ex_1',
      name: 'fs__read',
      upstream: 'fs',
      status: 'ok',
    });
    expect(capture.get('t', s!.id)).toMatchObject({
      request: { params: { arguments: { path: '/x' } } }, // values on: kept
      response: { id: 5, result: { content: [] } },
    });
  });
});

describe('ring bounds', () => {
  it('evicts the oldest by count', () => {
    const capture = new ExchangeCapture({ maxExchanges: 3 });
    const ids = Array.from(
      { length: 5 },
      (_, i) => capture.record('t', raw(call('a__b', {}, i), result({}, i)))!.id,
    );
    expect(capture.list('t').map((s) => s.id)).toEqual([ids[4], ids[3], ids[2]]);
    expect(capture.get('t', ids[0]!)).toBeUndefined();
  });

  it('finds held entries by id across its compactions, never evicted ones', () => {
    const ring = new BoundedRing<{ id: string; sizeBytes: number }>(10, 1_000_000);
    for (let i = 0; i < 3000; i++) ring.push({ id: `e${i}`, sizeBytes: 1 });
    expect(ring.size).toBe(10);
    expect(ring.get('e2999')?.id).toBe('e2999');
    expect(ring.get('e2990')?.id).toBe('e2990');
    expect(ring.get('e2989')).toBeUndefined();
    expect([...ring.newestFirst()].map((e) => e.id).slice(0, 2)).toEqual(['e2999', 'e2998']);
  });

  it('evicts the oldest by bytes', () => {
    const ring = new BoundedRing<{ id: string; sizeBytes: number }>(100, 1000);
    for (let i = 0; i < 10; i++) ring.push({ id: String(i), sizeBytes: 300 });
    expect(ring.size).toBe(3);
    expect(ring.bytes).toBe(900);
    expect([...ring.newestFirst()].map((e) => e.id)).toEqual(['9', '8', '7']);
    ring.push({ id: 'huge', sizeBytes: 5000 });
    expect([...ring.newestFirst()].map((e) => e.id)).toEqual(['huge']); // the newest is always kept
  });

  it('bounds the bytes of real records', () => {
    const capture = new ExchangeCapture({ maxBytes: 20_000 });
    for (let i = 0; i < 50; i++)
      capture.record('t', raw(call('a__b', { t: 'x'.repeat(2000) }, i), result({}, i)));
    const n = capture.list('t', { limit: 1000 }).length;
    expect(n).toBeGreaterThan(2);
    expect(n).toBeLessThan(10);
  });

  it('rejects bounds that are not positive integers', () => {
    expect(() => new ExchangeCapture({ maxExchanges: 0 })).toThrow(/maxCount must be a positive integer/);
    expect(() => new ExchangeCapture({ maxBytes: 1.5 })).toThrow(/maxBytes/);
  });
});

describe('watch and newer (Live reads the ring in batches)', () => {
  it('a watcher is told of each exchange of its tunnel; newer gives those after the cursor, oldest first', () => {
    const capture = new ExchangeCapture();
    let told = 0;
    const off = capture.watch('t', () => told++);
    let { exchanges, cursor } = capture.newer('t');
    expect(exchanges).toEqual([]); // undefined: from now on
    const ids = [1, 2, 3].map((i) => capture.record('t', raw(call('a__b', {}, i), result({}, i)))!.id);
    capture.record('other', raw(call('a__b', {}, 9), result({}, 9))); // another tunnel's: not told, not listed
    expect(told).toBe(3);
    ({ exchanges, cursor } = capture.newer('t', cursor));
    expect(exchanges.map((e) => e.id)).toEqual(ids);
    expect(exchanges[0]).toEqual(capture.list('t').at(-1)); // the same summary as the list's
    expect(capture.newer('t', cursor).exchanges).toEqual([]);
    const next = capture.record('t', raw(call('a__b', {}, 4), result({}, 4)))!.id;
    expect(capture.newer('t', cursor).exchanges.map((e) => e.id)).toEqual([next]);
    off();
    capture.record('t', raw(call('a__b', {}, 5), result({}, 5)));
    expect(told).toBe(4);
  });

  it('of more than the ring holds since the cursor, newer gives those still held', () => {
    const capture = new ExchangeCapture({ maxExchanges: 5 });
    expect(capture.maxExchanges).toBe(5);
    const { cursor } = capture.newer('t');
    const ids = Array.from(
      { length: 8 },
      (_, i) => capture.record('t', raw(call('a__b', {}, i), result({}, i)))!.id,
    );
    expect(capture.newer('t', cursor).exchanges.map((e) => e.id)).toEqual(ids.slice(3));
  });
});

describe('percentiles', () => {
  it('are within 10 % of the exact values', () => {
    const stats = new ToolStats();
    const at = Date.parse('2026-12-01T10:00:00Z');
    const durations = Array.from({ length: 1000 }, (_, i) => 1 + i); // 1…1000 ms
    for (const d of durations)
      stats.record({ name: 'fs__read', upstream: 'fs', at, durationMs: d, error: d % 10 === 0 });
    const [row] = stats.query(3_600_000, at + 1000);
    expect(row).toMatchObject({ name: 'fs__read', upstream: 'fs', calls: 1000, errors: 100, errorRate: 0.1 });
    expect(Math.abs(row!.p50 - 500) / 500).toBeLessThan(0.1);
    expect(Math.abs(row!.p95 - 950) / 950).toBeLessThan(0.1);
    expect(Math.abs(row!.p99 - 990) / 990).toBeLessThan(0.1);
  });

  it('windows: 1 h leaves out older calls that 24 h counts; older than 24 h are dropped', () => {
    const stats = new ToolStats();
    const now = Date.parse('2026-12-01T10:00:00Z');
    stats.record({ name: 'a__b', upstream: 'a', at: now - 25 * 3_600_000, durationMs: 1, error: false });
    stats.record({ name: 'a__b', upstream: 'a', at: now - 2 * 3_600_000, durationMs: 1, error: false });
    stats.record({ name: 'a__b', upstream: 'a', at: now - 60_000, durationMs: 1, error: false });
    expect(stats.query(3_600_000, now)[0]!.calls).toBe(1);
    expect(stats.query(86_400_000, now)[0]!.calls).toBe(2);
  });

  it('histogram helpers', () => {
    expect(binOf(0)).toBe(0);
    expect(binOf(1e12)).toBe(HISTOGRAM_BINS - 1);
    expect(percentiles([0, 0], 0, [0.5])).toEqual([0]);
  });
});

describe('children and zero knowledge', () => {
  it.each([
    ['off (the default): the messages, system prompt and answer redacted', false],
    ['on: kept as sent', true],
  ])('attaches a sampling request and its answer to the call; capture of values %s', (_, values) => {
    const capture = new ExchangeCapture();
    const sampling = JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'sampling/createMessage',
      params: {
        messages: [{ role: 'user', content: { type: 'text', text: 'context: the secret x' } }],
        systemPrompt: 'about the secret',
        maxTokens: 10,
      },
    });
    const answer = result({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }, 0);
    const sid = { sessionId: 's1', captureValues: values };
    expect(capture.record('t', raw(answer, '', { ...sid, httpStatus: 202 }))).toBeUndefined();
    const s = capture.record(
      't',
      raw(call('llm__ask', { q: 'x' }), sse(sampling, result({ content: [] })), {
        ...sid,
        contentType: 'text/event-stream',
      }),
    )!;
    const children = capture.get('t', s.id)!.children;
    if (values)
      expect(children).toEqual([
        { method: 'sampling/createMessage', request: JSON.parse(sampling), response: JSON.parse(answer) },
      ]);
    else {
      expect(children).toEqual([
        {
          method: 'sampling/createMessage',
          request: {
            jsonrpc: '2.0',
            id: 0,
            method: 'sampling/createMessage',
            params: {
              messages: [{ role: 'user', content: { type: '[redacted]', text: '[redacted]' } }],
              systemPrompt: '[redacted]',
              maxTokens: 10,
            },
          },
          response: {
            jsonrpc: '2.0',
            id: 0,
            result: { role: 'assistant', content: { type: '[redacted]', text: '[redacted]' }, model: 'm' },
          },
        },
      ]);
      expect(JSON.stringify(capture.get('t', s.id))).not.toContain('secret');
    }
    expect(capture.list('t')).toHaveLength(1);
  });

  it('records metadata only for a zero-knowledge tunnel', () => {
    const capture = new ExchangeCapture();
    const s = capture.record(
      't',
      raw(call('fs__read', { path: '/secret' }), result({ content: [] }), {
        zeroKnowledge: true,
        request: { bytes: 50, truncated: false, chunks: [] },
        response: { bytes: 20, truncated: false, chunks: [] },
      }),
    )!;
    expect(s).toMatchObject({
      method: null,
      name: null,
      upstream: null,
      status: 'ok',
      requestBytes: 50,
      responseBytes: 20,
    });
    expect(capture.get('t', s.id)).toMatchObject({ request: null, response: null, children: [] });
  });

  it('filters by upstream, method, status and caller', () => {
    // a clock of its own: the exchanges' time is fixed, so the 24 h window must end beside it, not at today's date
    const capture = new ExchangeCapture({ now: () => Date.parse('2026-12-01T10:00:01Z') });
    capture.record('t', raw(call('fs__read', {}), result({ content: [] })));
    capture.record(
      't',
      raw(call('gh__issue', {}), result({ content: [], isError: true }), { caller: 'bob' }),
    );
    capture.record(
      't',
      raw(
        call('gh__issue', {}),
        JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'x' } }),
      ),
    );
    expect(capture.list('t', { upstream: 'gh' }).map((s) => s.status)).toEqual([-32602, 'isError']);
    expect(capture.list('t', { status: 'error' }).map((s) => s.status)).toEqual([-32602]);
    expect(capture.list('t', { status: 'isError' })).toHaveLength(1);
    expect(capture.list('t', { caller: 'bob' })).toHaveLength(1);
    expect(capture.list('t', { method: 'tools/list' })).toHaveLength(0);
    expect(capture.list('other')).toEqual([]);
    expect(capture.stats('t', 86_400_000).map((r) => [r.name, r.calls, r.errors])).toEqual([
      ['fs__read', 1, 0],
      ['gh__issue', 2, 2],
    ]);
  });
});

describe('a call to an unknown name', () => {
  it("has no upstream and no Tools row; an upstream's own -32602 keeps both", () => {
    const capture = new ExchangeCapture({ now: () => Date.parse('2026-12-01T10:00:01Z') });
    const unknown = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'Unknown tool: "nope__x" (no upstream "nope")',
        data: { kind: 'tool', name: 'nope__x' },
      },
    });
    const s = capture.record('t', raw(call('nope__x', {}), unknown))!;
    expect(s).toMatchObject({ name: 'nope__x', upstream: null, status: -32602 });
    capture.record(
      't',
      raw(
        call('gh__issue', {}),
        JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'x' } }),
      ),
    );
    expect(capture.stats('t', 86_400_000).map((r) => [r.upstream, r.name, r.calls])).toEqual([
      ['gh', 'gh__issue', 1],
    ]);
    expect(capture.list('t', { upstream: 'nope' })).toEqual([]);
  });
});

describe('restoreRedacted (replay of an edited copy recorded with values off)', () => {
  const original = {
    jsonrpc: '2.0',
    id: 14,
    method: 'tools/call',
    params: {
      name: 'fs__read',
      arguments: { path: '/etc/hosts', depth: 2, deep: true, tags: ['a', 'b'], o: { k: 'v' } },
    },
  };
  const shown = redactMessage(original) as typeof original;

  it('puts the original values back where the copy still shows their placeholders', () => {
    const edited = { ...shown, id: 914 };
    expect(restoreRedacted(edited, original)).toEqual({ ...original, id: 914 });
  });

  it('keeps every field the owner changed, added or removed', () => {
    const edited = {
      ...shown,
      params: {
        ...shown.params,
        arguments: { path: '/etc/passwd', depth: 3, tags: ['[redacted]'], extra: 'x' },
      },
    };
    expect(restoreRedacted(edited, original)).toMatchObject({
      params: { arguments: { path: '/etc/passwd', depth: 3, tags: ['a'], extra: 'x' } },
    });
    expect((restoreRedacted(edited, original) as typeof original).params.arguments).not.toHaveProperty('o');
  });

  it('leaves a copy with no arguments, or a non-object, as it is', () => {
    expect(restoreRedacted({ method: 'tools/list' }, original)).toEqual({ method: 'tools/list' });
    expect(restoreRedacted('x', original)).toBe('x');
  });
});

describe('replayRequestHeaders', () => {
  const call = (name: string) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } });
  it('keeps a 2025-era original as it was (session headers only)', () => {
    const original = { 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-11-25' };
    expect(replayRequestHeaders(original, call('a__b'))).toEqual(original);
  });
  it('derives Mcp-Method and Mcp-Name of a 2026-era replay from the body sent (an edited copy)', () => {
    const original = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
    expect(replayRequestHeaders(original, call('faults__echo'))).toEqual({
      ...original,
      'mcp-name': 'faults__echo',
    });
    const read = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'resources/read',
      params: { uri: 'mcppipe://x/é' },
    });
    expect(replayRequestHeaders(original, read)).toEqual({
      ...original,
      'mcp-method': 'resources/read',
      'mcp-name': `=?base64?${Buffer.from('mcppipe://x/é').toString('base64')}?=`,
    });
    expect(replayRequestHeaders(original, '{not json')).toEqual(original);
  });
});
