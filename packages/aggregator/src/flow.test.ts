// The 2026-07-28 input_required flow in isolation, with fake timers for its time-to-live.
import type { ServerContext } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Flow } from './flow.js';

function ctx(
  extra: { inputResponses?: Record<string, unknown>; capabilities?: Record<string, unknown> } = {},
): ServerContext {
  return {
    mcpReq: {
      id: 1,
      method: 'tools/call',
      signal: new AbortController().signal,
      envelope: { 'io.modelcontextprotocol/clientCapabilities': extra.capabilities ?? { elicitation: {} } },
      ...(extra.inputResponses ? { inputResponses: extra.inputResponses } : {}),
      requestState: () => undefined,
      notify: async () => undefined,
      send: async () => ({}),
    },
  } as unknown as ServerContext;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Flow', () => {
  it('returns the upstream result directly when nothing is asked', async () => {
    const flow = new Flow('up', 'tools/call', { ttlMs: 1000, onEnd: () => undefined });
    flow.attach(Promise.resolve({ content: [] }));
    await expect(flow.leg(ctx())).resolves.toEqual({ content: [] });
    expect(flow.hasId).toBe(false);
  });

  it('parks an upstream request as input_required and resumes the same call on the retry', async () => {
    let finish!: (v: Record<string, unknown>) => void;
    const ended: Flow[] = [];
    const flow = new Flow('up', 'tools/call', { ttlMs: 1000, onEnd: (f) => ended.push(f) });
    flow.attach(new Promise((resolve) => (finish = resolve)));
    const first = flow.leg(ctx());
    const answer = flow.bridge(
      { method: 'elicitation/create', params: { message: 'name?', requestedSchema: { type: 'object' } } },
      new AbortController().signal,
    );
    const inputRequired = await first;
    expect(inputRequired).toEqual({
      resultType: 'input_required',
      inputRequests: {
        r1: {
          method: 'elicitation/create',
          params: { message: 'name?', requestedSchema: { type: 'object' }, mode: 'form' },
        },
      },
      requestState: flow.id,
    });
    const second = flow.leg(ctx({ inputResponses: { r1: { action: 'accept', content: { name: 'Ada' } } } }));
    await expect(answer).resolves.toEqual({ action: 'accept', content: { name: 'Ada' } });
    finish({ content: [{ type: 'text', text: 'done' }] });
    await expect(second).resolves.toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(ended).toEqual([flow]);
  });

  it('refuses requests the agent did not declare a capability for', async () => {
    const flow = new Flow('up', 'tools/call', { ttlMs: 1000, onEnd: () => undefined });
    flow.attach(new Promise(() => undefined));
    void flow.leg(ctx({ capabilities: {} }));
    expect(() => flow.bridge({ method: 'sampling/createMessage' }, new AbortController().signal)).toThrow(
      /sampling/,
    );
    flow.end();
  });

  it('cancels the upstream call when the agent does not come back in time', async () => {
    vi.useFakeTimers();
    const flow = new Flow('up', 'tools/call', { ttlMs: 5000, onEnd: () => undefined });
    flow.attach(new Promise(() => undefined));
    const leg = flow.leg(ctx());
    const parked = flow.bridge(
      { method: 'elicitation/create', params: { message: 'x' } },
      new AbortController().signal,
    );
    await leg;
    const rejected = expect(parked).rejects.toThrow(/in time/);
    vi.advanceTimersByTime(5000);
    await rejected;
    expect(flow.controller.signal.aborted).toBe(true);
  });
});
