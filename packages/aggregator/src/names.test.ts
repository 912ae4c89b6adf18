// Exposed names model APIs accept (DESIGN.md A15), against two real upstreams (the names fixture over stdio)
// seen by a real SDK client connected in memory: every listed name matches ^[a-zA-Z0-9_-]{1,64}$, calls and
// prompts/get by a rewritten name reach the original, a crafted collision stays apart, a tools/list_changed
// refreshes the table, and each rewritten name is logged once and reported in the diagnostics.
import { fitName } from '@mcppipe/namespace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAggregator } from './index.js';
import type { Aggregator } from './types.js';
import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { agentList, captureLogger, fixturePath, memoryAgent, TestRegistry, text } from '@mcppipe/test-utils';
import type { TestAgent } from '@mcppipe/test-utils';

const MODEL_API_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const LONG_NAME = `read_${'x'.repeat(60)}_long`;
/** An original tool name of `cal` that is exactly what `a.b` alone would be rewritten to. */
const LOOKALIKE = fitName('cal', 'a.b').slice('cal__'.length);

let registry: TestRegistry<UpstreamSnapshot>;
let aggregator: Aggregator;
let agent: TestAgent;
const logger = captureLogger();

beforeAll(async () => {
  registry = await TestRegistry.start<UpstreamSnapshot>([
    { name: 'cal', script: fixturePath('names-fixture.mjs'), env: { NAMES_LOOKALIKE: LOOKALIKE } },
    { name: 'other', script: fixturePath('names-fixture.mjs') },
  ]);
  aggregator = createAggregator({ registry, logger });
  agent = await memoryAgent(aggregator);
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await aggregator?.close();
  await registry?.close();
});

const toolNames = async () => (await agentList(agent, 'tools/list', 'tools')).map((t) => String(t['name']));
const renamedOf = (upstream: string) =>
  aggregator.diagnostics().upstreams.find((u) => u.upstream === upstream)!.renamed;
const exposedOf = (upstream: string, original: string) =>
  renamedOf(upstream).find((r) => r.original === original)?.exposed;

describe('exposed names (A15)', () => {
  it('lists only names model APIs accept; valid names stay exactly as they are', async () => {
    const names = await toolNames();
    expect(names).toHaveLength(7 + 6); // cal has the lookalike too
    for (const name of names) expect(name).toMatch(MODEL_API_NAME);
    expect(names).toContain('cal__a_b');
    expect(names).toContain('cal__a-b');
    expect(names).toContain(`cal__${LOOKALIKE}`);
    expect(names).toContain('other__a_b');
    expect(names).not.toContain('cal__calendar.read');
    expect(new Set(names).size).toBe(names.length);
    const prompts = (await agentList(agent, 'prompts/list', 'prompts')).map((p) => String(p['name']));
    expect(prompts).toContain('cal__ok_prompt');
    for (const name of prompts) expect(name).toMatch(MODEL_API_NAME);
    expect(prompts).not.toContain('cal__weekly report');
  });

  it('routes calls by rewritten names to the original tool, the crafted collision included', async () => {
    const table = renamedOf('cal').filter((r) => r.kind === 'tools');
    expect(table.map((r) => [r.original, r.reason]).sort()).toEqual(
      [
        ['a.b', 'characters'],
        ['calendar.read', 'characters'],
        [LONG_NAME, 'shortened'],
      ].sort(),
    );
    const dotted = exposedOf('cal', 'a.b')!;
    expect(dotted).not.toBe(`cal__${LOOKALIKE}`);
    expect(dotted).toMatch(/^cal__a_b-[0-9a-z]{8}$/);
    const calls: [string, string][] = [
      [dotted, 'a.b'],
      [`cal__${LOOKALIKE}`, LOOKALIKE],
      ['cal__a_b', 'a_b'],
      ['cal__a-b', 'a-b'],
      [exposedOf('cal', 'calendar.read')!, 'calendar.read'],
      [exposedOf('cal', LONG_NAME)!, LONG_NAME],
      [exposedOf('other', 'calendar.read')!, 'calendar.read'],
    ];
    for (const [exposed, original] of calls) {
      expect(exposed).toMatch(MODEL_API_NAME);
      expect(text(await agent.client.callTool({ name: exposed }))).toBe(`called ${original}`);
    }
    expect(exposedOf('cal', 'calendar.read')).toBe(fitName('cal', 'calendar.read'));
  });

  it('gets a prompt by its rewritten name', async () => {
    const exposed = renamedOf('cal').find((r) => r.kind === 'prompts')!;
    expect(exposed).toMatchObject({ original: 'weekly report', reason: 'characters' });
    expect(exposed.exposed).toMatch(/^cal__weekly_report-[0-9a-z]{8}$/);
    const result = await agent.client.getPrompt({ name: exposed.exposed });
    expect(result.messages[0]?.content).toEqual({ type: 'text', text: 'prompt weekly report' });
  });

  it('logs each rewritten name once, at info level', async () => {
    await toolNames();
    const rewritten = logger.entries.filter(
      (e) => e.level === 'info' && e.obj['upstream'] === 'cal' && e.obj['original'] === 'calendar.read',
    );
    expect(rewritten).toHaveLength(1);
    expect(rewritten[0]!.obj['exposed']).toBe(fitName('cal', 'calendar.read'));
    expect(rewritten[0]!.msg).toContain('"calendar.read"');
  });

  it('refreshes the table on notifications/tools/list_changed', async () => {
    const before = await toolNames();
    const added = fitName('other', 'new.tool');
    expect(before).not.toContain(added);
    await agent.client.callTool({ name: 'other__add_tool', arguments: { name: 'new.tool' } });
    const deadline = Date.now() + 30_000;
    let after = await toolNames();
    while (!after.includes(added) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      after = await toolNames();
    }
    expect(after).toContain(added);
    expect(text(await agent.client.callTool({ name: added }))).toBe('called new.tool');
  });
});
