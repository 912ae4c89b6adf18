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
 * Compiles a valid glob once into a predicate. Exact names, `prefix*`, `*suffix` and `*` take fast paths
 * (string comparisons); anything else becomes one anchored regular expression.
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
  let source = '^';
  for (const ch of glob) source += ch === '*' ? '[\\s\\S]*' : ch === '?' ? '[\\s\\S]' : escapeRegExp(ch);
  const re = new RegExp(`${source}$`, 'u');
  return (name) => re.test(name);
}
