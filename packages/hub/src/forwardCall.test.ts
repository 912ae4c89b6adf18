import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHub } from './hub.js';
import { Supervisor } from '@mcppipe/supervisor';
import type { Hub } from './types.js';
import {
  callToolWith,
  connectInMemory,
  errorOf,
  fixturePath,
  meta,
  startSupervisor,
  waitFor,
} from '@mcppipe/test-utils';
import type { TestClient } from '@mcppipe/test-utils';

// Real time, generous ratios (2-core shared machine): the timeout is 1.5 s; progress comes every 150 ms (10x
// margin), so a call lasting 2.5 timeouts succeeds only if progress resets it, and a silent call fails after
// ~1.5 s, long before the upstream would have answered (4 timeouts).
const TIMEOUT_MS = 1_500;

describe('call_tool: timeout reset by progress, progress forwarding, failures', { timeout: 60_000 }, () => {
  let registry: Supervisor;
  let hub: Hub;
  let client: TestClient;

  beforeAll(async () => {
    registry = await startSupervisor(
      Supervisor,
      [{ name: 'fixture', args: [fixturePath('hub-fixture.mjs')] }],
      {
        restartDelayMs: 1_500,
      },
    );
    hub = createHub({ registry, callTimeoutMs: TIMEOUT_MS });
    client = await connectInMemory(hub);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await hub?.close();
    await registry?.stop();
  });

  /** How many slow calls the fixture saw cancelled (asked directly, not through the hub). */
  async function cancelledCount(): Promise<number> {
    const result = await registry.request('fixture', {
      method: 'tools/call',
      params: { name: 'count_cancelled' },
    });
    return Number((result['content'] as { text: string }[])[0]!.text);
  }

  const slow = (durationMs: number, intervalMs: number) => ({
    server: 'fixture',
    tool: 'slow',
    arguments: { durationMs, intervalMs },
  });

  it('a call that keeps sending progress outlives the timeout and forwards progress under the agent token', async () => {
    const progress: number[] = [];
    const result = await callToolWith(client, slow(2.5 * TIMEOUT_MS, 150), {
      onprogress: (p) => progress.push(p.progress),
      timeout: 30_000,
    });
    expect(result.isError).toBeFalsy();
    expect((result.content[0] as { text: string }).text).toMatch(
      /^slow done after \d+ progress notifications$/,
    );
    expect(progress.length).toBeGreaterThan(5);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('an agent without a progress token still gets the reset (the hub always asks upstream for progress)', async () => {
    const result = await callToolWith(client, slow(2.5 * TIMEOUT_MS, 150), { timeout: 30_000 });
    expect(result.isError).toBeFalsy();
  });

  it('a silent call times out with MCPP_HUB_TIMEOUT, well before the upstream would answer', async () => {
    const cancelledBefore = await cancelledCount();
    const started = Date.now();
    const result = await callToolWith(client, slow(4 * TIMEOUT_MS, 0), { timeout: 30_000 });
    const elapsed = Date.now() - started;
    expect(errorOf(result)).toMatchObject({
      code: 'MCPP_HUB_TIMEOUT',
      server: 'fixture',
      tool: 'slow',
      timeoutMs: TIMEOUT_MS,
    });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(4 * TIMEOUT_MS);
    // The upstream was told (notifications/cancelled) and is still usable afterwards.
    await waitFor(async () => (await cancelledCount()) > cancelledBefore, {
      message: 'the upstream cancellation',
    });
    const echo = await meta(client, 'call_tool', {
      server: 'fixture',
      tool: 'echo',
      arguments: { text: 'ok' },
    });
    expect(echo.isError).toBeFalsy();
  });

  it('an upstream exiting mid-call gives an error result (not a hang); calls while it restarts name its phase', async () => {
    const generation = registry.get('fixture')!.generation;
    const result = await callToolWith(
      client,
      { server: 'fixture', tool: 'exit_during', arguments: { afterMs: 200 } },
      { timeout: 30_000 },
    );
    // issue 14.5: the exit itself moves the upstream to recovering, so the call in flight is answered as
    // unavailable (with the phase and a retry hint), not as an upstream error
    const error = errorOf(result);
    expect(error).toMatchObject({ code: 'MCPP_HUB_UNAVAILABLE', phase: 'recovering' });
    expect(error.message).toMatch(/fixture/);

    const down = errorOf(
      await meta(client, 'call_tool', { server: 'fixture', tool: 'echo', arguments: { text: 'x' } }),
    );
    expect(down).toMatchObject({ code: 'MCPP_HUB_UNAVAILABLE', phase: 'recovering' });
    expect(down.message).toContain('phase: recovering');

    await waitFor(() => registry.get('fixture')!.generation > generation, {
      message: 'the restart',
      timeoutMs: 30_000,
    });
    const echo = await meta(client, 'call_tool', {
      server: 'fixture',
      tool: 'echo',
      arguments: { text: 'back' },
    });
    expect(echo.content).toEqual([{ type: 'text', text: 'echo: back' }]);
  });

  it('an agent cancelling its call cancels the upstream request', async () => {
    const cancelledBefore = await cancelledCount();
    const controller = new AbortController();
    const call = callToolWith(client, slow(20_000, 100), { signal: controller.signal, timeout: 30_000 });
    await new Promise((r) => setTimeout(r, 300));
    controller.abort('user');
    await expect(call).rejects.toThrow();
    await waitFor(async () => (await cancelledCount()) > cancelledBefore, {
      message: 'the upstream cancellation',
    });
    // The hub's own state is clean: a quick call right after works.
    const echo = await meta(client, 'call_tool', {
      server: 'fixture',
      tool: 'echo',
      arguments: { text: 'after' },
    });
    expect(echo.isError).toBeFalsy();
  });

  it('closing the hub ends calls in flight with MCPP_HUB_CLOSED', async () => {
    const local = createHub({ registry, callTimeoutMs: 30_000 });
    await using agent = await connectInMemory(local);
    const call = callToolWith(agent, slow(20_000, 0), { timeout: 30_000 });
    await new Promise((r) => setTimeout(r, 300));
    await local.close();
    expect(errorOf(await call).code).toBe('MCPP_HUB_CLOSED');
    expect(errorOf(await meta(agent, 'list_servers')).code).toBe('MCPP_HUB_CLOSED');
    expect(() => local.createServer()).toThrow(/closed/);
  });
});
