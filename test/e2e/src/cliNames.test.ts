// `mcppipe up` with two upstreams whose tool and prompt names model APIs reject (DESIGN.md A15): real SDK
// clients of both eras list only names matching ^[a-zA-Z0-9_-]{1,64}$, call and get prompts by them, a
// crafted collision stays apart, and the rewritten names are logged once and listed under the startup table.
// The exposed names are pinned: the same tool list gives the same names on every start.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fixturePath, startCli } from '@mcppipe/test-utils';
import type { RunningCli } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MODEL_API_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const LONG_NAME = `read_${'x'.repeat(60)}_long`; // 70 characters
/** What `a.b` of upstream `cal` alone is rewritten to; `cal` also has a tool with exactly this name. */
const LOOKALIKE = 'a_b-asia389q';
/** Exposed name → original name of upstream `cal` (and two of `other`), pinned. */
const EXPECTED_TOOLS: Record<string, string> = {
  'cal__calendar_read-4lue7hv1': 'calendar.read',
  'cal__a_b-ux53sq53': 'a.b', // not cal__a_b-asia389q: that one is taken by the lookalike
  'cal__a_b-asia389q': LOOKALIKE,
  cal__a_b: 'a_b',
  'cal__a-b': 'a-b',
  'cal__read_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-7zw2muy3': LONG_NAME,
  'other__calendar_read-mvpwqd9j': 'calendar.read',
  'other__read_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-9ykpnoq9': LONG_NAME,
};

const node = (script: string, ...args: string[]) =>
  [process.execPath, script, ...args].map((a) => JSON.stringify(a)).join(' ');
const text = (r: unknown) =>
  ((r as { content?: { type: string; text?: string }[] }).content ?? []).find((c) => c.type === 'text')
    ?.text ?? '';

let cli: RunningCli;
let client: Client;
let v1: V1Client;

beforeAll(async () => {
  cli = await startCli([
    '--stdio',
    `cal=${node(fixturePath('names-fixture.mjs'), LOOKALIKE)}`,
    '--stdio',
    `other=${node(fixturePath('names-fixture.mjs'))}`,
  ]);
  client = new Client({ name: 'e2e-names', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(cli.url));
  v1 = new V1Client({ name: 'e2e-names-v1', version: '1' });
  await v1.connect(new V1Transport(cli.url));
}, 90_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  await v1?.close().catch(() => {});
  await cli?.stop();
});

describe('mcppipe up: exposed names (A15)', () => {
  it('lists only names model APIs accept, to clients of both eras', async () => {
    for (const list of [await client.listTools(), await v1.listTools()]) {
      const names = list.tools.map((t) => t.name);
      expect(names).toHaveLength(13);
      for (const name of names) expect(name).toMatch(MODEL_API_NAME);
      for (const exposed of Object.keys(EXPECTED_TOOLS)) expect(names).toContain(exposed);
      expect(names).toContain('other__a_b');
    }
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts.sort()).toEqual([
      'cal__ok_prompt',
      'cal__weekly_report-nfeiq60s',
      'other__ok_prompt',
      'other__weekly_report-r4e9gs2u',
    ]);
  });

  it('routes each call by its exposed name to the original tool upstream', async () => {
    for (const [exposed, original] of Object.entries(EXPECTED_TOOLS)) {
      expect(text(await client.callTool({ name: exposed }))).toBe(`called ${original}`);
    }
    expect(text(await v1.callTool({ name: 'cal__a_b-ux53sq53' }))).toBe('called a.b');
  });

  it('gets a prompt by its exposed name', async () => {
    const result = await client.getPrompt({ name: 'cal__weekly_report-nfeiq60s' });
    expect(result.messages[0]?.content).toEqual({ type: 'text', text: 'prompt weekly report' });
    const v1Result = await v1.getPrompt({ name: 'other__weekly_report-r4e9gs2u' });
    expect(v1Result.messages[0]?.content).toEqual({ type: 'text', text: 'prompt weekly report' });
  });

  it('logs each rewritten name once at info level and lists it under the startup table', async () => {
    await client.listTools();
    const logs = cli
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['original'] === 'calendar.read' && l['upstream'] === 'cal');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      level: 30,
      exposed: 'cal__calendar_read-4lue7hv1',
      reason: 'characters',
    });
    expect(cli.stderr()).toContain(
      '  cal: tool "calendar.read" exposed as cal__calendar_read-4lue7hv1 (characters outside [A-Za-z0-9_-])',
    );
    expect(cli.stderr()).toContain(
      '  other: prompt "weekly report" exposed as other__weekly_report-r4e9gs2u (characters outside [A-Za-z0-9_-])',
    );
    expect(cli.stderr()).toContain(`  cal: tool ${JSON.stringify(LONG_NAME)} exposed as cal__read_x`);
  });
});
