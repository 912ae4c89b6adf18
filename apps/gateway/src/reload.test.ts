import { diffLayouts } from '@mcppipe/config';
import type { Layout } from '@mcppipe/config';
import { describe, expect, it } from 'vitest';
import { applyConfigChange } from './reload.js';

const stdio = (name: string, args: string[] = []) => ({
  name,
  transport: 'stdio' as const,
  command: 'node',
  args,
});

describe('applyConfigChange', () => {
  it('removes, replaces and adds; untouched servers are not touched; a failing step does not stop the others', async () => {
    const previous: Layout = { mode: 'aggregate', upstreams: [stdio('a'), stdio('b'), stdio('c')] };
    const next: Layout = { mode: 'aggregate', upstreams: [stdio('a'), stdio('b', ['--v2']), stdio('d')] };
    const calls: string[] = [];
    const logs: [object, string | undefined][] = [];
    const log = (obj: object, msg?: string) => void logs.push([obj, msg]);
    await applyConfigChange(
      {
        add: async (s) => void calls.push(`add ${s.name}`),
        remove: async (name) => {
          calls.push(`remove ${name}`);
          throw new Error('boom');
        },
        replace: async (s) => void calls.push(`replace ${s.name}`),
      },
      { previous, next, diff: diffLayouts(previous, next) },
      { debug: log, info: log, warn: log, error: log },
    );
    expect(calls).toEqual(['remove c', 'replace b', 'add d']);
    expect(logs[0]).toEqual([
      { added: ['d'], removed: ['c'], changed: [{ name: 'b', fields: ['args'] }], unchanged: ['a'] },
      'config changed: applying',
    ]);
    expect(logs.some(([o]) => (o as { action?: string }).action === 'remove')).toBe(true);
  });
});
