/** A compiled glob: a predicate on one name. */
export type NameMatcher = (name: string) => boolean;

const UNSUPPORTED = /[\s[\]{}\\]/u;

/**
 * Checks a glob and says what is wrong with it.
 *
 * @param glob - the glob as configured
 * @returns a problem (without the path), or undefined when the glob is valid
 */
export function globProblem(glob: unknown): string | undefined {
  if (typeof glob !== 'string') return 'must be a string glob such as "github__*"';
  if (glob.length === 0) return 'must not be empty (use "*" to match every name)';
  if (glob.length > 256) return 'must be at most 256 characters';
  if (UNSUPPORTED.test(glob))
    return `${JSON.stringify(glob)} has whitespace, a bracket, a brace or a backslash; only * (any run of characters) and ? (one character) are special`;
  return undefined;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Compiles a valid glob once into a predicate. Globs with only `*` are string comparisons (exact, prefix,
 * suffix, then `indexOf` for the middle parts); a glob with `?` becomes one anchored regular expression, tried
 * only when its literal prefix and suffix match.
 *
 * @param glob - a glob that {@link globProblem} accepted
 * @returns the predicate
 */
export function compileGlob(glob: string): NameMatcher {
  if (glob === '*') return () => true;
  const stars = glob.split('*').length - 1;
  if (!glob.includes('?')) {
    if (stars === 0) return (name) => name === glob;
    if (stars === 1 && glob.endsWith('*')) {
      const prefix = glob.slice(0, -1);
      return (name) => name.startsWith(prefix);
    }
    if (stars === 1 && glob.startsWith('*')) {
      const suffix = glob.slice(1);
      return (name) => name.endsWith(suffix);
    }
  }
  if (!glob.includes('?')) return starMatcher(glob.split('*'));
  let source = '^';
  for (const ch of glob) source += ch === '*' ? '.*' : ch === '?' ? '.' : escapeRegExp(ch);
  const re = new RegExp(`${source}$`, 's');
  // Cheap rejection first: the glob with each ? widened to * matches a superset, without a regex.
  const widened = starMatcher(glob.replaceAll('?', '*').split('*'));
  const minLength = glob.replaceAll('*', '').length;
  return (name) => name.length >= minLength && widened(name) && re.test(name);
}

/** A `*`-only glob without a regex: literal head and tail, then each middle part leftmost in order. */
function starMatcher(parts: string[]): NameMatcher {
  const head = parts[0] ?? '';
  const tail = parts[parts.length - 1] ?? '';
  const middle = parts.slice(1, -1).filter((p) => p.length > 0);
  const minLength = parts.reduce((n, p) => n + p.length, 0);
  return (name) => {
    if (name.length < minLength || !name.startsWith(head) || !name.endsWith(tail)) return false;
    let pos = head.length;
    const end = name.length - tail.length;
    for (const part of middle) {
      const at = name.indexOf(part, pos);
      if (at < 0 || at + part.length > end) return false;
      pos = at + part.length;
    }
    return true;
  };
}

/**
 * The literal text before a glob's first wildcard (`github__` for `github__*_issue`).
 *
 * @param glob - a valid glob
 * @returns the prefix, possibly empty
 */
export function literalPrefix(glob: string): string {
  const i = glob.search(/[*?]/u);
  return i < 0 ? glob : glob.slice(0, i);
}
