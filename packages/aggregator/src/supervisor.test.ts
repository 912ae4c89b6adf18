// The aggregator over the real Supervisor (@mcppipe/supervisor): stdio children, real lifecycle. A killed
// upstream fails fast with the supervisor's -32000 data while the other keeps answering, and rejoins with a
// list_changed once the supervisor has restarted it.
import { Supervisor } from '@mcppipe/supervisor';
import { aggregatorPolicy } from '@mcppipe/upstream-state';
import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { passthroughSchema as RAW } from '@mcppipe/supervisor';
import { createAggregator } from './index.js';
import type { Aggregator } from './index.js';
import {
  fixturePath,
  httpAgent,
  referenceServerPath,
  startHttpHarness,
  text,
  waitFor,
} from '@mcppipe/test-utils';
import type { HttpHarness, TestAgent } from '@mcppipe/test-utils';

let supervisor: Supervisor;
let aggregator: Aggregator;
let harness: HttpHarness;
let agent: TestAgent;

beforeAll(async () => {
  supervisor = new Supervisor({
    upstreams: [
      {
        name: 'everything',
        transport: 'stdio',
        command: process.execPath,
        args: [referenceServerPath('everything')],
      },
      {
        name: 'faults',
        transport: 'stdio',
        command: process.execPath,
        args: [fixturePath('agg-faults.mjs')],
      },
    ],
    clientCapabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
    // A 3 s first retry leaves a wide window in which the killed upstream is recovering.
    policy: aggregatorPolicy({ initialBackoffMs: 3000, maxBackoffMs: 3000, jitterRatio: 0 }, {}),
  });
  await supervisor.start();
  aggregator = createAggregator({ registry: supervisor });
  harness = await startHttpHarness(aggregator);
  agent = await httpAgent(harness.url, {
    sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'from the agent' }, model: 'fake' }),
  });
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await harness?.close();
  await aggregator?.close();
  await supervisor?.stop();
});

it('merges, routes and bridges through supervised upstreams', async () => {
  const names = (await agent.client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(['everything__echo', 'faults__echo']));
  expect(text(await agent.client.callTool({ name: 'everything__echo', arguments: { message: 'sup' } }))).toBe(
    'Echo: sup',
  );
  expect(text(await agent.client.callTool({ name: 'faults__sample' }))).toBe('sampled: from the agent');
});

// Skipped until @mcppipe/supervisor defers responses behind notifications read in the same chunk (the SDK
// dispatches notifications in a microtask and responses at once, so a burst of progress followed by the result
// loses the progress: SDK-V1-PROBE.md §0.7). The test registry does it (@mcppipe/test-utils'
// TestRegistry, deferResponses) and forwarding.test.ts covers the aggregator's side; un-skip when the supervisor does it too.
it('delivers every progress event, the last one before the result', async () => {
  const result = await agent.client.request(
    {
      method: 'tools/call',
      params: { name: 'faults__progress_final', arguments: { count: 3 }, _meta: { progressToken: 'p' } },
    },
    RAW,
  );
  expect(text(result)).toBe('sent 3');
  expect(agent.notifications('notifications/progress').map((p) => p['progress'])).toEqual([1, 2, 3]);
});

it('fails fast while a killed upstream recovers, and refreshes its lists when it is back', async () => {
  const pid = supervisor.get('faults')!.pid!;
  const before = agent.notifications('notifications/tools/list_changed').length;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => supervisor.get('faults')!.phase !== 'available', {
    message: 'faults to leave available',
  });
  const err = await agent.client.callTool({ name: 'faults__echo', arguments: { text: 'x' } }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  expect((err as ProtocolError).code).toBe(-32000);
  expect((err as ProtocolError).message).toContain('"faults"');
  expect((err as ProtocolError).data).toMatchObject({ upstream: 'faults', phase: 'recovering' });
  expect(
    text(await agent.client.callTool({ name: 'everything__echo', arguments: { message: 'alive' } })),
  ).toBe('Echo: alive');
  await waitFor(() => supervisor.get('faults')!.phase === 'available', {
    timeoutMs: 20_000,
    message: 'faults back',
  });
  await waitFor(() => agent.notifications('notifications/tools/list_changed').length > before, {
    message: 'list_changed',
  });
  expect(text(await agent.client.callTool({ name: 'faults__echo', arguments: { text: 'back' } }))).toBe(
    'faults: back',
  );
});
