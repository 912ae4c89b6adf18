import { referenceServerPath } from '@mcppipe/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { Supervisor } from './supervisor.js';

let sup: Supervisor | undefined;
afterEach(async () => {
  await sup?.stop();
  sup = undefined;
});

describe('progress from the transport tap', () => {
  it('delivers every progress notification, including one that arrives with the result, under the caller', async () => {
    sup = new Supervisor({
      upstreams: [
        {
          name: 'everything',
          transport: 'stdio',
          command: process.execPath,
          args: [referenceServerPath('everything')],
        },
      ],
    });
    await sup.start();
    // several runs: the race in the SDK client drops the last event in most runs without the tap
    for (let run = 0; run < 5; run++) {
      const seen: number[] = [];
      const result = await sup.request(
        'everything',
        {
          method: 'tools/call',
          params: { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 4 } },
        },
        { onprogress: (p) => seen.push(p.progress), resetTimeoutOnProgress: true, timeoutMs: 10_000 },
      );
      expect(JSON.stringify(result)).toContain('Long running operation completed');
      expect(seen).toEqual([1, 2, 3, 4]);
    }
  });

  it('resets the timeout on progress and times out without it', async () => {
    sup = new Supervisor({
      upstreams: [
        {
          name: 'everything',
          transport: 'stdio',
          command: process.execPath,
          args: [referenceServerPath('everything')],
        },
      ],
    });
    await sup.start();
    const call = (reset: boolean) =>
      sup!.request(
        'everything',
        {
          method: 'tools/call',
          params: { name: 'trigger-long-running-operation', arguments: { duration: 1.5, steps: 10 } },
        },
        { onprogress: () => {}, resetTimeoutOnProgress: reset, timeoutMs: 700 },
      );
    await expect(call(true)).resolves.toBeDefined(); // 150 ms between events, 1.5 s in all
    await expect(call(false)).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
  });
});
