import { describe, expect, it } from 'vitest';
import { ANONYMOUS, compilePolicy } from './policy.js';

// The three recipes of the README ("Recipes"), verbatim: keep them in sync.
const readOnlyFilesystem = {
  rules: [
    { match: 'filesystem__write_*', action: 'deny' },
    { match: 'filesystem__edit_*', action: 'deny' },
    { match: 'filesystem__move_*', action: 'deny' },
    { match: 'filesystem__create_*', action: 'deny' },
  ],
};

const noisyToolPerCaller = {
  limits: [{ scope: 'caller+tool', match: 'search__query', rate: '10/min', burst: 5 }],
};

const teamAllowlist = {
  default: 'deny',
  rules: [
    { match: 'github__*', action: 'allow' },
    { match: 'linear__*', action: 'allow' },
    { match: 'filesystem__read_*', action: 'allow' },
    { match: 'filesystem__list_*', action: 'allow' },
    { match: 'github', kind: 'resource', action: 'allow' },
  ],
};

describe('README recipes', () => {
  it('read-only filesystem', () => {
    const policy = compilePolicy(readOnlyFilesystem);
    for (const name of [
      'filesystem__write_file',
      'filesystem__edit_file',
      'filesystem__move_file',
      'filesystem__create_directory',
    ])
      expect(policy.allows('tool', name, 'alice')).toBe(false);
    for (const name of [
      'filesystem__read_file',
      'filesystem__list_directory',
      'filesystem__search_files',
      'github__get_issue',
    ])
      expect(policy.allows('tool', name, ANONYMOUS)).toBe(true);
  });

  it('one noisy tool capped per caller', () => {
    let now = 0;
    const limiter = compilePolicy(noisyToolPerCaller).limiter({ clock: { now: () => now } });
    for (let i = 0; i < 5; i++) expect(limiter.take('alice', 'search__query').ok).toBe(true);
    expect(limiter.take('alice', 'search__query')).toMatchObject({ ok: false, retryAfterMs: 6000 });
    expect(limiter.take('bob', 'search__query').ok).toBe(true);
    expect(limiter.take('alice', 'search__index').ok).toBe(true);
    now += 6000;
    expect(limiter.take('alice', 'search__query').ok).toBe(true);
  });

  it('team-wide allowlist (default deny)', () => {
    const policy = compilePolicy(teamAllowlist);
    expect(policy.allows('tool', 'github__create_issue', 'alice')).toBe(true);
    expect(policy.allows('tool', 'linear__list_issues', 'alice')).toBe(true);
    expect(policy.allows('tool', 'filesystem__read_file', 'alice')).toBe(true);
    expect(policy.allows('tool', 'filesystem__write_file', 'alice')).toBe(false);
    expect(policy.allows('tool', 'slack__post_message', 'alice')).toBe(false);
    expect(policy.allows('prompt', 'github__review', 'alice')).toBe(true);
    expect(policy.allows('resource', 'github', 'alice')).toBe(true);
    expect(policy.allows('resource', 'filesystem', 'alice')).toBe(false);
    const tools = [
      { name: 'github__get_issue' },
      { name: 'slack__post_message' },
      { name: 'filesystem__list_directory' },
    ];
    expect(policy.filterTools(tools, 'alice').map((t) => t.name)).toEqual([
      'github__get_issue',
      'filesystem__list_directory',
    ]);
  });
});
