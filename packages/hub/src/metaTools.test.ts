import { describe, expect, it } from 'vitest';
import { isMetaToolName, metaTools, parseMetaToolArgs } from './metaTools.js';

describe('metaTools', () => {
  it('are four, strict, with read-only hints on the three lookups only', () => {
    expect(metaTools.map((t) => [t.name, t.annotations?.readOnlyHint])).toEqual([
      ['list_servers', true],
      ['list_tools', true],
      ['get_tool', true],
      ['call_tool', false],
    ]);
    for (const t of metaTools) {
      expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(t.description!.length).toBeLessThan(120);
    }
  });

  it('recognise their own names only', () => {
    expect(isMetaToolName('get_tool')).toBe(true);
    expect(isMetaToolName('toString')).toBe(false);
    expect(isMetaToolName('tools')).toBe(false);
  });
});

describe('parseMetaToolArgs', () => {
  const problem = (name: Parameters<typeof parseMetaToolArgs>[0], args: unknown) => {
    const parsed = parseMetaToolArgs(name, args);
    if (parsed.ok) throw new Error('expected a failure');
    expect(parsed.error.code).toBe('MCPP_HUB_INVALID_ARGUMENTS');
    return parsed.error.message;
  };

  it('accepts valid arguments, defaulting absent ones', () => {
    expect(parseMetaToolArgs('list_servers', undefined)).toEqual({ ok: true, args: {} });
    expect(parseMetaToolArgs('list_tools', { server: 's' })).toEqual({ ok: true, args: { server: 's' } });
    expect(parseMetaToolArgs('call_tool', { server: 's', tool: 't' })).toEqual({
      ok: true,
      args: { server: 's', tool: 't', arguments: {} },
    });
    expect(parseMetaToolArgs('call_tool', { server: 's', tool: 't', arguments: { a: [1] } })).toEqual({
      ok: true,
      args: { server: 's', tool: 't', arguments: { a: [1] } },
    });
  });

  it('rejects unknown, missing and mistyped properties with a message naming them', () => {
    expect(problem('list_servers', { x: 1 })).toBe(
      'Invalid arguments for list_servers: unknown property x; it takes no arguments',
    );
    expect(problem('get_tool', { server: 's', tool: 't', a: 1, b: 2 })).toBe(
      'Invalid arguments for get_tool: unknown properties a, b; expected only server, tool',
    );
    expect(problem('get_tool', { server: 's' })).toContain('missing required property tool');
    expect(problem('list_tools', { server: 3 })).toContain('server must be a non-empty string');
    expect(problem('list_tools', { server: '' })).toContain('server must be a non-empty string');
    expect(problem('call_tool', { server: 's', tool: 't', arguments: 'x' })).toContain(
      'arguments must be a JSON object',
    );
    expect(problem('list_tools', [1])).toContain('expected a JSON object');
  });
});
