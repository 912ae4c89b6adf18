import { Readable } from 'node:stream';
import type { Transform } from 'node:stream';
import { MemoryBucketStore } from '@mcppipe/policy';
import { describe, expect, it } from 'vitest';
import { RelayGate, relayPolicyConfig, relayRulesActive } from './relayGate.js';

const rules = (over: Partial<ConstructorParameters<typeof RelayGate>[0]['rules']> = {}) => ({
  deny: [] as string[],
  allow: [] as string[],
  callsPerMinute: null as number | null,
  ...over,
});
const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });
const listed = (id: number | string) => ({
  jsonrpc: '2.0',
  id,
  result: { tools: [{ name: 'faults__echo' }, { name: 'probe__echo' }, { name: 'faults__crash' }] },
});

async function through(t: Transform, chunks: string[]): Promise<string> {
  let out = '';
  await new Promise<void>((resolve, reject) => {
    Readable.from(chunks.map((c) => Buffer.from(c)))
      .pipe(t)
      .on('data', (c: Buffer | string) => (out += c.toString()))
      .on('end', resolve)
      .on('error', reject);
  });
  return out;
}

describe('RelayGate', () => {
  it('turns deny and allow globs into ordered rules; deny wins, an allow list denies the rest', () => {
    expect(relayPolicyConfig({ deny: ['a__*'], allow: [] }).default).toBe('allow');
    expect(relayPolicyConfig({ deny: [], allow: ['b__*'] }).default).toBe('deny');
    expect(relayRulesActive(rules())).toBe(false);
    expect(relayRulesActive(rules({ callsPerMinute: 5 }))).toBe(true);
  });

  it('refuses a denied tools/call as an unknown tool (-32602 naming it), lets others through', async () => {
    const gate = new RelayGate({ rules: rules({ deny: ['faults__*'] }), keyPrefix: 't1:' });
    const refused = await gate.inspect(call(7, 'faults__echo'));
    expect(refused.refusal).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'Unknown tool: "faults__echo"', data: expect.anything() },
    });
    expect((await gate.inspect(call(8, 'probe__echo'))).refusal).toBeUndefined();
    const allowOnly = new RelayGate({ rules: rules({ allow: ['probe__*'] }), keyPrefix: 't2:' });
    expect((await allowOnly.inspect(call(9, 'faults__echo'))).refusal).toBeDefined();
  });

  it('answers a batch with an error per refused call', async () => {
    const gate = new RelayGate({ rules: rules({ deny: ['faults__*'] }), keyPrefix: 't3:' });
    const v = await gate.inspect([call(1, 'faults__a'), call(2, 'probe__b'), call(3, 'faults__c')]);
    expect((v.refusal as { id: number }[]).map((r) => r.id)).toEqual([1, 3]);
  });

  it('counts calls per tunnel: the N+1st call in a minute gets -31429 with retryAfterMs, lists are free', async () => {
    const store = new MemoryBucketStore();
    const a = new RelayGate({ rules: rules({ callsPerMinute: 2 }), keyPrefix: 'a:', store });
    const b = new RelayGate({ rules: rules({ callsPerMinute: 2 }), keyPrefix: 'b:', store });
    expect((await a.inspect(call(1, 'x__y'))).refusal).toBeUndefined();
    expect((await a.inspect({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).refusal).toBeUndefined();
    expect((await a.inspect(call(3, 'x__z'))).refusal).toBeUndefined();
    const over = (await a.inspect(call(4, 'x__y'))).refusal as {
      error: { code: number; data: { retryAfterMs: number } };
    };
    expect(over.error.code).toBe(-31429);
    expect(over.error.data.retryAfterMs).toBeGreaterThan(0);
    expect((await b.inspect(call(1, 'x__y'))).refusal).toBeUndefined(); // another tunnel's bucket
  });

  it('filters the tools/list answer it was asked to, in a JSON body split across chunks', async () => {
    const gate = new RelayGate({ rules: rules({ deny: ['faults__*'] }), keyPrefix: 't4:' });
    const { lists } = await gate.inspect({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
    expect([...lists]).toEqual([5]);
    const text = JSON.stringify(listed(5));
    const t = gate.filterResponse('application/json; charset=utf-8', lists)!;
    const out = JSON.parse(await through(t, [text.slice(0, 20), text.slice(20)])) as ReturnType<
      typeof listed
    >;
    expect(out.result.tools).toEqual([{ name: 'probe__echo' }]);
    expect(gate.filterResponse('application/json', new Set())).toBeUndefined();
    // another id's answer is untouched
    expect(gate.filterMessage(listed(6), lists)).toEqual(listed(6));
  });

  it('filters an SSE stream event by event, keeping ids, event names, comments and other messages', async () => {
    const gate = new RelayGate({ rules: rules({ deny: ['faults__*'] }), keyPrefix: 't5:' });
    const lists = new Set<string | number>(['l1']);
    const note = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progress: 1 },
    });
    const sse = `: ping\n\nid: e1\nevent: message\ndata: ${note}\n\nid: e2\nevent: message\ndata: ${JSON.stringify(listed('l1'))}\n\n`;
    const out = await through(gate.filterResponse('text/event-stream', lists)!, [
      sse.slice(0, 30),
      sse.slice(30, 95),
      sse.slice(95),
    ]);
    const events = out.split('\n\n').filter(Boolean);
    expect(events[0]).toBe(': ping');
    expect(events[1]).toBe(`id: e1\nevent: message\ndata: ${note}`);
    expect(events[2]).toMatch(/^id: e2\nevent: message\ndata: /);
    const data = JSON.parse(events[2]!.split('data: ')[1]!) as ReturnType<typeof listed>;
    expect(data.result.tools.map((t) => t.name)).toEqual(['probe__echo']);
  });
});
