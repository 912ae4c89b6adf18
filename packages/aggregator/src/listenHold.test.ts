import { describe, expect, it } from 'vitest';
import { listenStreamSubscriptions } from './listenHold.js';

describe('listenStreamSubscriptions', () => {
  it('holds every URI that can be subscribed while the stream is open, and releases them once', async () => {
    const log: string[] = [];
    const hold = listenStreamSubscriptions({
      subscribeResource: async (uri) => {
        if (uri === 'bad') throw new Error('not wrapped');
        log.push(`+${uri}`);
        return async () => void log.push(`-${uri}`);
      },
    });
    const release = await hold(['mcppipe://a/eA', 'bad', 'mcppipe://b/eQ']);
    expect(log).toEqual(['+mcppipe://a/eA', '+mcppipe://b/eQ']);
    await release();
    expect(log).toEqual(['+mcppipe://a/eA', '+mcppipe://b/eQ', '-mcppipe://a/eA', '-mcppipe://b/eQ']);
  });
});
