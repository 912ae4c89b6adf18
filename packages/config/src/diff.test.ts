import { describe, expect, it } from 'vitest';
import { deepEqual, diffLayouts } from './diff.js';
import type { UpstreamConfig } from './types.js';

const fs: UpstreamConfig = {
  name: 'fs',
  transport: 'stdio',
  command: 'npx',
  args: ['-y', 'srv'],
  env: { A: '1', B: '2' },
};
const web: UpstreamConfig = { name: 'web', transport: 'http', url: 'https://x/mcp', headers: { A: 'b' } };
const mem: UpstreamConfig = { name: 'mem', transport: 'stdio', command: 'mem' };

describe('deepEqual', () => {
  it('compares JSON-like values, ignoring key order and undefined fields', () => {
    expect(deepEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual({ a: [] }, { a: {} })).toBe(false);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
    expect(deepEqual(NaN, NaN)).toBe(true);
  });
});

describe('diffLayouts (G10)', () => {
  it('added, removed, changed (any field, deep) and unchanged, each by name', () => {
    const previous = { upstreams: [web, fs, mem] };
    const next = {
      upstreams: [
        { ...fs, env: { B: '2', A: '1' } },
        { ...web, headers: { A: 'c' } },
        { name: 'new', transport: 'http', url: 'http://n' } as const,
      ],
    };
    const diff = diffLayouts(previous, next);
    expect(diff.added).toEqual([next.upstreams[2]]);
    expect(diff.removed).toEqual([mem]);
    expect(diff.unchanged).toEqual([next.upstreams[0]]);
    expect(diff.changed).toEqual([
      { name: 'web', previous: web, next: next.upstreams[1], fields: ['headers'] },
    ]);
  });

  it('reports which fields changed, including a transport switch and new optional fields', () => {
    const diff = diffLayouts(
      { upstreams: [fs, web] },
      {
        upstreams: [
          { name: 'fs', transport: 'http', url: 'http://x' },
          { ...web, hub: false },
        ],
      },
    );
    expect(diff.changed.map((c) => [c.name, c.fields])).toEqual([
      ['fs', ['args', 'command', 'env', 'transport', 'url']],
      ['web', ['hub']],
    ]);
  });

  it('reordered args are a change; identical layouts are all unchanged', () => {
    expect(
      diffLayouts({ upstreams: [fs] }, { upstreams: [{ ...fs, args: ['srv', '-y'] }] }).changed[0]?.fields,
    ).toEqual(['args']);
    expect(diffLayouts({ upstreams: [fs, web] }, { upstreams: [web, fs] })).toEqual({
      added: [],
      removed: [],
      changed: [],
      unchanged: [fs, web],
    });
  });
});
