import type { ToolStatsRow } from '@mcppipe/capture';
import type { ToolSnapshot } from '@mcppipe/events';
import { describe, expect, it } from 'vitest';
import { statsView } from './stats.js';

const row = (upstream: string | null, name: string, calls: number): ToolStatsRow => ({
  upstream,
  name,
  calls,
  errors: 0,
  errorRate: 0,
  p50: 1,
  p95: 2,
  p99: 3,
});
const pin = (upstream: string, name: string, changed: boolean): ToolSnapshot => ({
  upstream,
  name,
  hash: `sha256:${name}`,
  changed,
  pinnedAt: null,
});

describe('statsView (the Tools tab rows)', () => {
  it('marks the rows of changed pins, adds a zero-call row for a changed tool without calls, stars first', () => {
    const rows = [row('docs', 'docs__a', 3), row('docs', 'docs__b', 1), row('probe', 'probe__c', 2)];
    const pins = [
      pin('docs', 'docs__a', false),
      pin('docs', 'docs__b', true),
      pin('probe', 'probe__held', true),
      pin('probe', 'probe__c', false),
    ];
    const view = statsView(rows, pins, new Set(['probe__c']));
    expect(view.map((r) => [r.name, r.calls, r.changed, r.pinned])).toEqual([
      ['probe__c', 2, false, true],
      ['docs__a', 3, false, false],
      ['docs__b', 1, true, false],
      ['probe__held', 0, true, false],
    ]);
    expect(view[3]).toMatchObject({ upstream: 'probe', errors: 0, errorRate: 0, p50: 0, p95: 0, p99: 0 });
  });

  it('matches a bare row name of a namespaced upstream; nothing is changed without pins', () => {
    expect(statsView([row('docs', 'a', 1)], [pin('docs', 'docs__a', true)], new Set())[0]?.changed).toBe(
      true,
    );
    expect(statsView([row(null, 'a', 1)], [pin('only', 'a', true)], new Set())[0]?.changed).toBe(true);
    expect(statsView([row('docs', 'docs__a', 1)], [], new Set()).map((r) => r.changed)).toEqual([false]);
  });
});
