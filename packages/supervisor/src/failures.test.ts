import { isMcpPipeError } from '@mcppipe/errors';
import { fixturePath, waitFor } from '@mcppipe/test-utils';
import type { StateChangedEvent } from '@mcppipe/upstream-state';
import { aggregatorPolicy } from '@mcppipe/upstream-state';
import { describe, expect, it } from 'vitest';
import { Supervisor } from './index.js';

const T = 60_000;
const basic = {
  name: 'a',
  transport: 'stdio' as const,
  command: process.execPath,
  args: [fixturePath('sup-basic.mjs')],
};

function nested(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('A12: what counts towards the trip rule', () => {
  it(
    'C4: calls whose arguments nest 5,000 deep fail here with MCPP_SUP_BAD_REQUEST; the upstream stays available, same pid',
    async () => {
      await using sup = new Supervisor({ upstreams: [basic] });
      const events: StateChangedEvent[] = [];
      sup.on('state_changed', (e) => events.push(e));
      await sup.start();
      const pid = sup.get('a')!.pid;
      for (let i = 0; i < 5; i++) {
        const err = await sup
          .request('a', { method: 'tools/call', params: { name: 'echo', arguments: nested(5_000) } })
          .catch((e: unknown) => e);
        expect(isMcpPipeError(err, 'MCPP_SUP_BAD_REQUEST')).toBe(true);
        expect((err as Error).message).not.toMatch(/call stack/i);
      }
      const snap = sup.get('a')!;
      expect(snap.phase).toBe('available');
      expect(snap.pid).toBe(pid);
      expect(events.map((e) => e.to)).toEqual(['available']);
      const ok = await sup.request('a', {
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'x' } },
      });
      expect((ok['content'] as Array<{ text: string }>)[0]!.text).toBe('x');
    },
    T,
  );

  it(
    'C4: -32601 (method not found) and -32603 from the upstream do not count',
    async () => {
      await using sup = new Supervisor({ upstreams: [basic] });
      await sup.start();
      const pid = sup.get('a')!.pid;
      for (let i = 0; i < 4; i++) {
        const e1 = await sup.request('a', { method: 'no/such_method' }).catch((e: unknown) => e);
        expect((e1 as { code: number }).code).toBe(-32601);
        const e2 = await sup
          .request('a', { method: 'tools/call', params: { name: 42 } as unknown as Record<string, unknown> })
          .catch((e: unknown) => e);
        // the v1 SDK's low-level server answers a malformed tools/call with -32603
        expect((e2 as { code: number }).code).toBe(-32603);
      }
      expect(sup.get('a')!.phase).toBe('available');
      expect(sup.get('a')!.pid).toBe(pid);
    },
    T,
  );
});

describe('the exit window', () => {
  it(
    '14.5: a call right after SIGKILL gets MCPP_SUP_UNAVAILABLE with a phase and retryAfterMs; the exit alone moved the machine',
    async () => {
      await using sup = new Supervisor({
        upstreams: [basic],
        policy: aggregatorPolicy({ initialBackoffMs: 5_000, maxBackoffMs: 5_000, jitterRatio: 0 }, {}),
      });
      const events: StateChangedEvent[] = [];
      sup.on('state_changed', (e) => events.push(e));
      await sup.start();
      const pid = sup.get('a')!.pid!;
      process.kill(pid, 'SIGKILL');
      // same tick: the exit is not delivered yet
      const calls = [0, 1, 2, 3].map(() =>
        sup
          .request('a', { method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } })
          .catch((e: unknown) => e),
      );
      // and within the window, until the machine moved
      await waitFor(() => sup.get('a')!.phase !== 'available', { timeoutMs: 10_000, message: 'exit seen' });
      calls.push(
        sup
          .request('a', { method: 'tools/call', params: { name: 'echo', arguments: {} } })
          .catch((e: unknown) => e),
      );
      for (const err of await Promise.all(calls)) {
        expect(isMcpPipeError(err, 'MCPP_SUP_UNAVAILABLE'), String(err)).toBe(true);
        const data = (err as { data: { phase: string; retryAfterMs?: number } }).data;
        expect(['connecting', 'available', 'recovering', 'failed']).toContain(data.phase);
        expect(data.phase).toBe('recovering');
        expect(typeof data.retryAfterMs).toBe('number');
      }
      const down = events.filter((e) => e.from === 'available');
      expect(down).toHaveLength(1);
      expect(down[0]!.to).toBe('recovering');
      expect(down[0]!.error).toBe('the process was killed by SIGKILL');
      expect(sup.get('a')!.lastError).toMatch(/killed by SIGKILL/);
    },
    T,
  );
});
