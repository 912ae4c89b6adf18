import { describe, expect, it } from 'vitest';
import { ExchangeCapture } from './index.js';
import type { ExchangeDetail, RawExchange, SharedExchangeRing } from './index.js';

const text = (t: string) => {
  const b = Buffer.from(t);
  return { bytes: b.length, truncated: false, chunks: [b] };
};

function raw(n: number, secret = 'top secret'): RawExchange {
  return {
    caller: 'ci key',
    zeroKnowledge: false,
    startedAt: Date.parse('2026-12-01T10:00:00Z') + n,
    durationMs: 1,
    httpStatus: 200,
    contentType: 'application/json',
    sessionId: undefined,
    replayHeaders: {},
    request: text(
      JSON.stringify({
        jsonrpc: '2.0',
        id: n,
        method: 'tools/call',
        params: { name: 'fs__read', arguments: { path: secret } },
      }),
    ),
    response: text(JSON.stringify({ jsonrpc: '2.0', id: n, result: { content: [] } })),
  };
}

/** A shared ring in this process that counts the round trips (the store's own rings have their contract suite). */
function countingRing(): SharedExchangeRing & { calls: number; held: Map<string, ExchangeDetail[]> } {
  const held = new Map<string, ExchangeDetail[]>();
  const ring = {
    calls: 0,
    held,
    async appendMany(batches: Iterable<readonly [string, readonly ExchangeDetail[]]>) {
      ring.calls++;
      for (const [k, records] of batches) held.set(k, [...(held.get(k) ?? []), ...records]);
    },
    async list(k: string, limit?: number) {
      return [...(held.get(k) ?? [])].reverse().slice(0, limit);
    },
    async get(k: string, id: string) {
      return held.get(k)?.find((d) => d.id === id);
    },
  };
  return ring;
}

describe('the shared ring (issue 20): batched writes, reads after a flush', () => {
  it('250 exchanges on two tunnels are 3 writes (100, 100, the rest at the flush), redacted details', async () => {
    const ring = countingRing();
    const capture = new ExchangeCapture({ shared: ring, sharedWrites: { flushMs: 60_000, maxBatch: 100 } });
    for (let i = 0; i < 250; i++) capture.record(i % 2 ? 'a' : 'b', raw(i));
    await new Promise((r) => setImmediate(r));
    expect(ring.calls).toBe(2);
    const listed = await capture.listShared('a', { limit: 1000 });
    expect(ring.calls).toBe(3);
    expect(listed.length).toBe(125);
    expect(listed.map((s) => s.id)).toEqual(capture.list('a', { limit: 1000 }).map((s) => s.id));
    expect(listed[0]).not.toHaveProperty('request');
    const detail = await capture.getShared('a', listed[0]!.id);
    expect(detail).toEqual(capture.get('a', listed[0]!.id));
    expect(JSON.stringify(ring.held.get('a'))).not.toContain('top secret');
    expect(await capture.listShared('a', { status: 'error' })).toEqual([]);
  });

  it('a write failure is reported once per batch and never reaches the recording', async () => {
    const errors: unknown[] = [];
    const ring = countingRing();
    ring.appendMany = async () => {
      throw new Error('store away');
    };
    const capture = new ExchangeCapture({
      shared: ring,
      sharedWrites: { flushMs: 5, onError: (e) => errors.push(e) },
    });
    expect(capture.record('a', raw(1))).toBeDefined();
    await capture.flushShared();
    expect(errors).toHaveLength(1);
    expect(capture.list('a')).toHaveLength(1);
    ring.list = async () => {
      throw new Error('store away');
    };
    expect(await capture.listShared('a')).toEqual(capture.list('a')); // the owner node answers from its own ring
    await expect(capture.listShared('elsewhere')).rejects.toThrow('store away');
  });
});
