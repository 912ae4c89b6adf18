import { afterEach, describe, expect, it } from 'vitest';
import { createHub } from './hub.js';
import { Supervisor } from '@mcppipe/supervisor';
import type { Hub, ListServersResult, ListToolsResult } from './types.js';
import {
  connectInMemory,
  data,
  fixturePath,
  killUpstream,
  meta,
  referenceServerPath,
  startSupervisor,
  waitFor,
} from '@mcppipe/test-utils';
import type { TestClient, TestUpstream } from '@mcppipe/test-utils';

const fixture = (env?: Record<string, string>): TestUpstream => ({
  name: 'fixture',
  args: [fixturePath('hub-fixture.mjs')],
  ...(env ? { env } : {}),
});

describe('the per-server tool cache', { timeout: 60_000 }, () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function setup(
    upstreams: TestUpstream[],
    restartDelayMs?: number,
  ): Promise<{ registry: Supervisor; hub: Hub; client: TestClient }> {
    const registry = await startSupervisor(
      Supervisor,
      upstreams,
      restartDelayMs === undefined ? {} : { restartDelayMs },
    );
    cleanup.push(() => registry.stop());
    const hub = createHub({ registry });
    cleanup.push(() => hub.close());
    const client = await connectInMemory(hub);
    cleanup.push(() => client.close());
    return { registry, hub, client };
  }

  /** How many tools/list requests the fixture process has answered (asked directly, not through the hub). */
  async function listCount(registry: Supervisor): Promise<number> {
    const result = await registry.request('fixture', {
      method: 'tools/call',
      params: { name: 'count_lists' },
    });
    return Number((result['content'] as { text: string }[])[0]!.text);
  }

  const toolNames = async (client: TestClient, server = 'fixture') =>
    data<ListToolsResult>(await meta(client, 'list_tools', { server })).tools.map((t) => t.name);

  it('answers list_tools, get_tool and list_servers from the cache without a round trip', async () => {
    const { registry, client } = await setup([fixture()]);
    await toolNames(client);
    const before = await listCount(registry);
    await toolNames(client);
    await meta(client, 'get_tool', { server: 'fixture', tool: 'echo' });
    await meta(client, 'list_servers');
    expect(await listCount(registry)).toBe(before);
  });

  it('refreshes after the upstream sends tools/list_changed, before anyone asks', async () => {
    const { registry, client } = await setup([fixture()]);
    expect(await toolNames(client)).not.toContain('late_tool');
    const before = await listCount(registry);
    const added = await meta(client, 'call_tool', {
      server: 'fixture',
      tool: 'add_tool',
      arguments: { name: 'late_tool' },
    });
    expect(added.content).toEqual([{ type: 'text', text: 'added late_tool' }]);
    // The hub re-lists on the notification by itself …
    await waitFor(async () => (await listCount(registry)) > before, {
      message: 'a tools/list after list_changed',
    });
    const after = await listCount(registry);
    // … so the next list_tools is answered from the refreshed cache.
    expect(await toolNames(client)).toContain('late_tool');
    const def = data<{ tool: { name: string } }>(
      await meta(client, 'get_tool', { server: 'fixture', tool: 'late_tool' }),
    );
    expect(def.tool.name).toBe('late_tool');
    expect(await listCount(registry)).toBe(after);
  });

  it('follows upstream pagination to the end', async () => {
    const { client } = await setup([fixture({ HUB_FIXTURE_TOOLS: '25', HUB_FIXTURE_PAGE_SIZE: '7' })]);
    const names = await toolNames(client);
    expect(names).toHaveLength(32);
    expect(names.at(-1)).toBe('filler_24');
    const { servers } = data<ListServersResult>(await meta(client, 'list_servers'));
    expect(servers[0]!.toolCount).toBe(32);
  });

  it('refetches after a reconnect (new generation) and serves the last list while the server is down', async () => {
    // A restart delay long enough to look at the hub while the fixture is down.
    const { registry, client } = await setup([fixture()], 1_500);
    await meta(client, 'call_tool', {
      server: 'fixture',
      tool: 'add_tool',
      arguments: { name: 'gone_after_restart' },
    });
    await waitFor(async () => (await toolNames(client)).includes('gone_after_restart'));
    const generation = registry.get('fixture')!.generation;
    killUpstream(registry, 'fixture');
    await waitFor(() => registry.get('fixture')!.phase !== 'available', {
      message: 'the fixture to go down',
    });
    const down = data<ListToolsResult>(await meta(client, 'list_tools', { server: 'fixture' }));
    expect(down.phase).toBe('recovering');
    expect(down.tools.map((t) => t.name)).toContain('gone_after_restart');
    const { servers } = data<ListServersResult>(await meta(client, 'list_servers'));
    expect(servers[0]).toMatchObject({ name: 'fixture', phase: 'recovering' });
    await waitFor(() => registry.get('fixture')!.generation > generation, {
      message: 'a reconnect',
      timeoutMs: 30_000,
    });
    // The new process never had the runtime tool: the cache must not keep it.
    await waitFor(async () => !(await toolNames(client)).includes('gone_after_restart'), {
      message: 'a fresh list',
    });
    expect(await toolNames(client)).toContain('echo');
  });

  it("handles server-everything's own tools/list_changed, sent right after each (re)connect", async () => {
    const { registry, client } = await setup([
      { name: 'everything', args: [referenceServerPath('everything'), 'stdio'] },
    ]);
    const seen: string[] = [];
    registry.on('notification', (e) => seen.push(`${e.upstream} ${e.method}`));
    const generation = registry.get('everything')!.generation;
    killUpstream(registry, 'everything');
    await waitFor(() => registry.get('everything')!.generation > generation, {
      message: 'a reconnect',
      timeoutMs: 30_000,
    });
    await waitFor(() => seen.includes('everything notifications/tools/list_changed'), {
      message: 'list_changed',
    });
    const direct = await registry.request('everything', { method: 'tools/list' });
    const expected = (direct['tools'] as { name: string }[]).map((t) => t.name);
    expect(await toolNames(client, 'everything')).toEqual(expected);
    expect(expected).toContain('echo');
  });
});
