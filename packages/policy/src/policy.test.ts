import { McpPipeError } from '@mcppipe/errors';
import { describe, expect, it } from 'vitest';
import { ANONYMOUS, compilePolicy } from './policy.js';
import type { PolicyConfig } from './types.js';

function compileError(config: unknown): McpPipeError {
  try {
    compilePolicy(config);
  } catch (err) {
    if (err instanceof McpPipeError) return err;
    throw err;
  }
  throw new Error('compiled');
}

describe('rule engine', () => {
  it('the first matching rule wins, in order', () => {
    const allowFirst = compilePolicy({
      rules: [
        { match: 'github__get_*', action: 'allow' },
        { match: 'github__*', action: 'deny' },
      ],
    });
    expect(allowFirst.allows('tool', 'github__get_issue', 'alice')).toBe(true);
    expect(allowFirst.allows('tool', 'github__create_issue', 'alice')).toBe(false);
    const denyFirst = compilePolicy({
      rules: [
        { match: 'github__*', action: 'deny' },
        { match: 'github__get_*', action: 'allow' },
      ],
    });
    expect(denyFirst.allows('tool', 'github__get_issue', 'alice')).toBe(false);
    expect(denyFirst.decide('tool', 'github__get_issue', 'alice')).toEqual({ allowed: false, rule: 0 });
  });

  it('the default decides when no rule matches: allow unless configured', () => {
    const rules: PolicyConfig['rules'] = [{ match: 'github__*', action: 'deny' }];
    expect(compilePolicy({ rules }).allows('tool', 'slack__post', 'alice')).toBe(true);
    expect(compilePolicy({}).allows('tool', 'slack__post', 'alice')).toBe(true);
    expect(compilePolicy({ rules, default: 'deny' }).allows('tool', 'slack__post', 'alice')).toBe(false);
    expect(compilePolicy({ default: 'deny' }).decide('tool', 'slack__post', 'alice')).toEqual({
      allowed: false,
      rule: undefined,
    });
  });

  it('globs with __ and - on prefixed names', () => {
    const policy = compilePolicy({
      rules: [
        { match: 'my-fs__write_*', action: 'deny' },
        { match: '*__delete-*', action: 'deny' },
      ],
    });
    expect(policy.allows('tool', 'my-fs__write_file', 'a')).toBe(false);
    expect(policy.allows('tool', 'my-fs__read_file', 'a')).toBe(true);
    expect(policy.allows('tool', 'my_fs__write_file', 'a')).toBe(true);
    expect(policy.allows('tool', 'gh-enterprise__delete-repo', 'a')).toBe(false);
    expect(policy.allows('tool', 'gh-enterprise__delete_repo', 'a')).toBe(true);
  });

  it('order holds between rules for one upstream and rules for every upstream (the compiled index)', () => {
    const policy = compilePolicy({
      rules: [
        { match: 'github__get_*', action: 'allow' },
        { match: '*__delete_*', action: 'deny' },
        { match: 'github__*', action: 'allow' },
        { match: 'git*', action: 'deny' },
        { match: 'gitlab__*', action: 'allow' },
      ],
    });
    expect(policy.decide('tool', 'github__get_delete_x', 'a')).toEqual({ allowed: true, rule: 0 });
    expect(policy.decide('tool', 'github__delete_repo', 'a')).toEqual({ allowed: false, rule: 1 });
    expect(policy.decide('tool', 'github__create_issue', 'a')).toEqual({ allowed: true, rule: 2 });
    expect(policy.decide('tool', 'gitlab__create_issue', 'a')).toEqual({ allowed: false, rule: 3 });
    expect(policy.decide('tool', 'gitea__create_issue', 'a')).toEqual({ allowed: false, rule: 3 });
    expect(policy.decide('tool', 'slack__delete_message', 'a')).toEqual({ allowed: false, rule: 1 });
    expect(policy.decide('tool', 'slack__post', 'a')).toEqual({ allowed: true, rule: undefined });
    expect(policy.decide('tool', 'noprefix', 'a')).toEqual({ allowed: true, rule: undefined });
  });

  it('per-caller rules apply only to their callers; "*" and omitted callers mean everyone', () => {
    const policy = compilePolicy({
      rules: [
        { match: 'github__*', callers: ['ci-bot', 'client_8f2a'], action: 'allow' },
        { match: 'github__*', callers: ['*'], action: 'deny' },
        { match: 'slack__*', action: 'deny' },
      ],
    });
    expect(policy.allows('tool', 'github__create_issue', 'ci-bot')).toBe(true);
    expect(policy.allows('tool', 'github__create_issue', 'client_8f2a')).toBe(true);
    expect(policy.allows('tool', 'github__create_issue', 'alice')).toBe(false);
    expect(policy.allows('tool', 'slack__post', 'ci-bot')).toBe(false);
    expect(policy.allows('tool', 'slack__post', ANONYMOUS)).toBe(false);
  });

  it('anonymous is a caller like any other', () => {
    const policy = compilePolicy({
      rules: [{ match: '*', callers: [ANONYMOUS], action: 'deny' }],
    });
    expect(ANONYMOUS).toBe('anonymous');
    expect(policy.allows('tool', 'github__get_issue', 'anonymous')).toBe(false);
    expect(policy.allows('tool', 'github__get_issue', 'alice')).toBe(true);
  });

  it('kind narrows a rule; resources are matched on their upstream name', () => {
    const policy = compilePolicy({
      rules: [
        { match: 'github__secret_*', kind: 'prompt', action: 'deny' },
        { match: 'private-notes', kind: 'resource', action: 'deny' },
        { match: 'github__*', action: 'deny' },
      ],
    });
    expect(policy.allows('prompt', 'github__secret_plan', 'a')).toBe(false);
    expect(policy.allows('tool', 'private-notes__read', 'a')).toBe(true);
    expect(policy.allows('resource', 'private-notes', 'a')).toBe(false);
    expect(policy.allows('resource', 'notes', 'a')).toBe(true);
    // A rule without kind applies to every kind.
    expect(policy.allows('tool', 'github__x', 'a')).toBe(false);
    expect(policy.allows('prompt', 'github__x', 'a')).toBe(false);
    expect(policy.decide('prompt', 'github__secret_plan', 'a')).toEqual({ allowed: false, rule: 0 });
  });

  it('filterTools keeps the same objects in order, and returns the input array when nothing is removed', () => {
    const policy = compilePolicy({ rules: [{ match: 'fs__write_*', callers: ['bob'], action: 'deny' }] });
    const tools = [{ name: 'fs__read_file' }, { name: 'fs__write_file' }, { name: 'fs__list' }];
    const bobs = policy.filterTools(tools, 'bob');
    expect(bobs).toEqual([{ name: 'fs__read_file' }, { name: 'fs__list' }]);
    expect(bobs[0]).toBe(tools[0]);
    expect(bobs[1]).toBe(tools[2]);
    expect(policy.filterTools(tools, 'alice')).toBe(tools);
    expect(tools).toHaveLength(3);
    expect(policy.filterPrompts([{ name: 'fs__write_prompt' }], 'bob')).toEqual([]);
  });

  it('filterResources asks the host for each item’s upstream', () => {
    const policy = compilePolicy({ rules: [{ match: 'vault', kind: 'resource', action: 'deny' }] });
    const items = [
      { uri: 'mcppipe://vault/a', upstream: 'vault' },
      { uri: 'mcppipe://docs/b', upstream: 'docs' },
    ];
    expect(policy.filterResources(items, 'alice', (r) => r.upstream)).toEqual([items[1]]);
  });

  it('decisions stay right past the bound of remembered decisions', () => {
    const policy = compilePolicy({
      rules: [
        { match: 'github__*', callers: ['alice'], action: 'allow' },
        { match: 'github__*', action: 'deny' },
      ],
    });
    expect(policy.allows('tool', 'github__get_issue', 'alice')).toBe(true);
    for (let i = 0; i < 60_000; i++)
      expect(policy.allows('tool', 'github__get_issue', `caller-${i}`)).toBe(false);
    expect(policy.allows('tool', 'github__get_issue', 'alice')).toBe(true);
    expect(policy.allows('prompt', 'github__get_issue', 'alice')).toBe(true);
    expect(policy.allows('tool', 'github__get_issue', 'caller-1')).toBe(false);
  });

  it('the compiled policy keeps a frozen copy of its configuration', () => {
    const config = { rules: [{ match: 'a__*', action: 'deny' as const }] };
    const policy = compilePolicy(config);
    config.rules[0]!.match = 'b__*';
    expect(policy.allows('tool', 'a__x', 'c')).toBe(false);
    expect(Object.isFrozen(policy.config.rules)).toBe(true);
  });
});

describe('compile errors', () => {
  it.each([
    [
      { rules: [{ match: 'a__*', action: 'deny' }, {}, { match: '', action: 'allow' }] },
      'rules[1].match: must be a string glob such as "github__*"',
    ],
    [
      {
        rules: [
          { match: 'a__*', action: 'allow' },
          { match: 'b__*', action: 'allow' },
          { match: 'x[', action: 'deny' },
        ],
      },
      'rules[2].match: "x[" has whitespace, a bracket',
    ],
    [
      { rules: [{ match: 'a__*', action: 'block' }] },
      'rules[0].action: must be "allow" or "deny", got "block"',
    ],
    [
      { rules: [{ match: 'a__*', action: 'deny', kind: 'tools' }] },
      'rules[0].kind: must be "tool" or "prompt" or "resource", got "tools"',
    ],
    [
      { rules: [{ match: 'a__*', action: 'deny', callers: [] }] },
      'rules[0].callers: must be a non-empty list',
    ],
    [
      { rules: [{ match: 'a__*', action: 'deny', callers: ['ok', 7] }] },
      'rules[0].callers[1]: must be a non-empty string',
    ],
    [
      { rules: [{ match: 'a__*', action: 'deny', caller: 'x' }] },
      'rules[0].caller: unknown field (allowed: match, callers, kind, action)',
    ],
    [{ default: 'block' }, 'default: must be "allow" or "deny", got "block"'],
    [{ rules: {} }, 'rules: must be a list'],
    [
      { limits: [{ scope: 'caller', rate: '10/minute' }] },
      'limits[0].rate: must be "<n>/<s|min|h>" with n from 1 to 999999 (e.g. "10/min", "5/s", "100/h"), got "10/minute"',
    ],
    [{ limits: [{ scope: 'caller', rate: '0/s' }] }, 'limits[0].rate: must be "<n>/<s|min|h>"'],
    [
      { limits: [{ scope: 'caller', rate: '5/s', burst: 0 }] },
      'limits[0].burst: must be an integer from 1 to 1000000, got 0',
    ],
    [
      { limits: [{ scope: 'caller', rate: '5/s', burst: 1.5 }] },
      'limits[0].burst: must be an integer from 1 to 1000000, got 1.5',
    ],
    [
      { limits: [{ scope: 'user', rate: '5/s' }] },
      'limits[0].scope: must be "caller" or "tool" or "caller+tool" or "all", got "user"',
    ],
    [{ limits: [{ scope: 'tool', rate: '5/s', match: '' }] }, 'limits[0].match: must not be empty'],
    ['deny', '(policy): must be an object'],
  ])('%j → MCPP_POLICY_INVALID "%s…"', (config, start) => {
    const err = compileError(config);
    expect(err.code).toBe('MCPP_POLICY_INVALID');
    expect(err.message.startsWith(start)).toBe(true);
  });

  it('lists every problem in data.errors, the message starting with the first', () => {
    const err = compileError({
      rules: [{ match: 'a__*', action: 'nope' }],
      limits: [{ scope: 'caller', rate: '5/d' }],
    });
    expect(err.data).toEqual({
      errors: [
        'rules[0].action: must be "allow" or "deny", got "nope"',
        'limits[0].rate: must be "<n>/<s|min|h>" with n from 1 to 999999 (e.g. "10/min", "5/s", "100/h"), got "5/d"',
      ],
    });
    expect(err.message).toMatch(/^rules\[0\]\.action: .* \(and 1 more: limits\[0\]\.rate: /);
  });

  it('accepts the rates of the spec', () => {
    for (const rate of ['10/min', '5/s', '100/h'])
      expect(() => compilePolicy({ limits: [{ scope: 'caller', rate }] })).not.toThrow();
  });
});
