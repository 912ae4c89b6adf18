import { describe, expect, it } from 'vitest';
import { compileGlob, globProblem } from './glob.js';

describe('globs on exposed names', () => {
  it.each([
    ['github__*', 'github__create_issue', true],
    ['github__*', 'github_create_issue', false],
    ['github__*', 'gitlab__create_issue', false],
    ['filesystem__write_*', 'filesystem__write_file', true],
    ['filesystem__write_*', 'filesystem__read_file', false],
    ['my-server__*', 'my-server__get-thing', true],
    ['my-server__*', 'my_server__get-thing', false],
    ['*__delete_*', 'my-server__delete_repo', true],
    ['*__delete_*', 'my-server__undelete', false],
    ['*_file', 'filesystem__read_file', true],
    ['*', 'anything__at_all', true],
    ['search__query', 'search__query', true],
    ['search__query', 'search__query2', false],
    ['a?c__x', 'abc__x', true],
    ['a?c__x', 'ac__x', false],
    ['a?c__x', 'abbc__x', false],
    ['files.v2__*', 'files.v2__read', true],
    ['files.v2__*', 'filesXv2__read', false],
    ['*-beta__*', 'tool-beta__run', true],
    ['*-beta__*', 'toolbeta__run', false],
    ['a*b*c', 'a__b__c', true],
    ['a*b*c', 'a__c__b', false],
    ['x+y__*', 'x+y__go', true],
    ['x+y__*', 'xxy__go', false],
    ['a*bc*bc', 'a_bc_bc', true],
    ['a*bc*bc', 'abcbc', true],
    ['a*bc*bc', 'abc', false],
    ['*__x*y*__z', 'up__x1y2__z', true],
    ['*__x*y*__z', 'up__y1x2__z', false],
    ['a?*__b', 'ab__b', true],
    ['a?*__b', 'a__b', false],
    ['*.?__*', 'v1.2__t', true],
  ])('%s on %s → %s', (glob, name, expected) => {
    expect(globProblem(glob)).toBeUndefined();
    expect(compileGlob(glob)(name)).toBe(expected);
  });

  it('* matches an empty run and runs containing _ and -', () => {
    expect(compileGlob('github__*')('github__')).toBe(true);
    expect(compileGlob('a*z')('a_-_z')).toBe(true);
    expect(compileGlob('a*z')('az')).toBe(true);
  });

  it.each([
    [42, 'must be a string glob such as "github__*"'],
    ['', 'must not be empty (use "*" to match every name)'],
    [
      'github__[ab]*',
      '"github__[ab]*" has whitespace, a bracket, a brace or a backslash; only * (any run of characters) and ? (one character) are special',
    ],
    ['{a,b}__*', expect.stringContaining('a brace')],
    ['a b', expect.stringContaining('whitespace')],
  ])('rejects %j', (glob, problem) => {
    expect(globProblem(glob)).toEqual(problem);
  });
});
