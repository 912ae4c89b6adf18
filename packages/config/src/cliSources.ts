/**
 * The CLI source rules (DESIGN.md A6–A8) as a pure function from parsed flags to a layout.
 */
import { McpPipeError } from '@mcppipe/errors';
import { validateUpstreamName } from './names.js';
import { hasUrlCredentials, redactUrl } from './redactUrl.js';
import { URL_CREDENTIALS_FLAG_PROBLEM } from './rules.js';
import { nameForCommand, nameForUrl, uniqueName } from './sourceName.js';
import type { Layout, UpstreamConfig } from './types.js';

/** The source flags of `mcppipe up`, as parsed by yargs. */
export interface CliSourceFlags {
  /** `--upstream [name=]url`, repeatable. */
  upstream?: readonly string[];
  /** `--stdio [name=]"command line"`, repeatable. */
  stdio?: readonly string[];
  /** `--upstreams-file FILE`. */
  upstreamsFile?: string;
}

/**
 * Where the CLI's layout comes from: the flags themselves, a TOML file still to be read
 * (`loadUpstreamsFile(path)`), or nowhere (auto-detection, A11).
 */
export type CliSources =
  { source: 'flags'; layout: Layout } | { source: 'file'; path: string } | { source: 'none' };

type Flag = '--upstream' | '--stdio';

/** One flag value, split into its optional name and its URL or command. */
export interface CliSource {
  /** Which flag gave it. */
  flag: Flag;
  /** The flag value as given. */
  raw: string;
  /** The `name=` prefix, when there is one (not yet validated). */
  name: string | undefined;
  /** The URL or command line after the prefix (or the whole value). */
  value: string;
}

/** A name candidate: what could be meant as a name (validated strictly afterwards, so `Search=` fails loudly). */
const NAME_CANDIDATE = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * Splits one source flag value into `name` and URL/command. `=` may appear inside URLs and commands,
 * so a prefix is a name only when:
 *
 * - `--upstream`: the value does not start with a URL scheme (`http://x/?a=b` is bare), and the text
 *   before its first `=` is a name candidate (`[A-Za-z0-9_][A-Za-z0-9_-]*`: not a `-flag`): `search=http://…`.
 * - `--stdio`: the first word of the command (up to the first whitespace) contains `=` and the text
 *   before that `=` is a name candidate: `fs=npx -y …` is named; `node server.js --port=1`,
 *   `env A=B cmd` and `C:\x=y\srv.exe` are bare.
 *
 * A name candidate that breaks rule A6 (`Search`, `NODE_ENV`) is later rejected as an invalid name,
 * not silently taken as part of the URL or command.
 *
 * @param flag - `--upstream` or `--stdio`
 * @param raw - the flag value
 * @returns the split source
 * @example Splitting
 * ```ts
 * splitCliSource('--upstream', 'search=http://127.0.0.1:3001/?a=b'); // name 'search'
 * splitCliSource('--stdio', 'node server.js --opt=1');               // name undefined
 * ```
 */
export function splitCliSource(flag: Flag, raw: string): CliSource {
  const bare: CliSource = { flag, raw, name: undefined, value: raw.trim() };
  if (flag === '--upstream') {
    const trimmed = raw.trim();
    if (HAS_SCHEME.test(trimmed)) return bare;
    const eq = trimmed.indexOf('=');
    if (eq < 0 || !NAME_CANDIDATE.test(trimmed.slice(0, eq))) return bare;
    return { flag, raw, name: trimmed.slice(0, eq), value: trimmed.slice(eq + 1).trim() };
  }
  const trimmed = raw.trimStart();
  const firstWord = /^\S*/.exec(trimmed)?.[0] ?? '';
  const eq = firstWord.indexOf('=');
  if (eq < 0 || !NAME_CANDIDATE.test(firstWord.slice(0, eq))) return bare;
  return { flag, raw, name: firstWord.slice(0, eq), value: trimmed.slice(eq + 1).trim() };
}

/** Quotes a flag value for display the way a user would type it in a POSIX shell. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `"${value.replace(/(["\\$`])/g, '\\$1')}"`;
}

/**
 * Renders a source the way a user types it in a POSIX shell, as messages show it. A URL is shown redacted
 * (`redactUrl`: no userinfo, query or fragment), since messages end up in logs.
 *
 * @param source - flag, optional name and value
 * @returns e.g. `--upstream http://x`, `--stdio "npx -y pkg"`, `--stdio fs="npx -y ."`
 * @example Suggesting a name
 * ```ts
 * formatCliSource({ flag: '--stdio', name: 'fs', value: 'npx -y @modelcontextprotocol/server-filesystem .' });
 * // '--stdio fs="npx -y @modelcontextprotocol/server-filesystem ."'
 * ```
 */
export function formatCliSource(source: Pick<CliSource, 'flag' | 'name' | 'value'>): string {
  const prefix = source.name === undefined ? '' : `${source.name}=`;
  const value = source.flag === '--upstream' ? redactUrl(source.value) : source.value;
  return `${source.flag} ${prefix}${shellQuote(value)}`;
}

function suggestedName(source: CliSource): string {
  return source.flag === '--upstream' ? nameForUrl(source.value) : nameForCommand(source.value);
}

function checkName(source: CliSource): void {
  try {
    validateUpstreamName(source.name ?? '');
  } catch (err) {
    throw new McpPipeError('MCPP_NS_INVALID_NAME', `${formatCliSource(source)}: ${(err as Error).message}`, {
      data: { name: source.name, source: source.raw },
      cause: err,
    });
  }
}

function checkValue(source: CliSource): string | undefined {
  if (source.flag === '--stdio')
    return source.value === '' ? `${formatCliSource(source)}: the command is empty` : undefined;
  let url: URL | undefined;
  try {
    url = new URL(source.value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    return `${formatCliSource(source)}: not an http:// or https:// URL`;
  if (hasUrlCredentials(source.value)) return `${formatCliSource(source)}: ${URL_CREDENTIALS_FLAG_PROBLEM}`;
  return undefined;
}

function bareSourceError(sources: CliSource[]): McpPipeError {
  const bare = sources.filter((s) => s.name === undefined);
  const taken = new Set(sources.flatMap((s) => (s.name === undefined ? [] : [s.name])));
  const named = bare.map((s) => formatCliSource({ ...s, name: uniqueName(suggestedName(s), taken) }));
  if (bare.length === 2 && sources.length === 2 && bare[0]?.flag !== bare[1]?.flag) {
    return new McpPipeError(
      'MCPP_CFG_AMBIGUOUS_SOURCES',
      [
        'ambiguous sources: one unnamed --upstream and one unnamed --stdio.',
        'To aggregate both, name each one:',
        `  ${named.join(' ')}`,
        'To serve one alone, pass only that one.',
      ].join('\n'),
      { data: { sources: bare.map((s) => s.raw) } },
    );
  }
  const list = bare.map(formatCliSource);
  const subject =
    list.length === 1
      ? `${list[0]} has no name`
      : `${list.slice(0, -1).join(', ')} and ${list.at(-1)} have no name`;
  return new McpPipeError(
    'MCPP_CFG_BARE_SOURCE',
    `${subject}; with 2 or more sources every one needs name=. For example:\n${named.map((n) => `  ${n}`).join('\n')}`,
    { data: { sources: bare.map((s) => s.raw) } },
  );
}

function toUpstream(source: CliSource, name: string): UpstreamConfig {
  return source.flag === '--upstream'
    ? { name, transport: 'http', url: source.value }
    : { name, transport: 'stdio', command: source.value };
}

/**
 * Applies the CLI source rules (A6–A8), purely:
 *
 * - `--upstreams-file` with `--upstream`/`--stdio` → `MCPP_CFG_SOURCE_CONFLICT`; alone → `{ source: 'file' }`.
 * - no source flags → `{ source: 'none' }` (the CLI then auto-detects, A11).
 * - one source (bare or named) → a `single` layout; a bare source is named after its URL host or command.
 * - one bare `--upstream` plus one bare `--stdio` → `MCPP_CFG_AMBIGUOUS_SOURCES`, showing how to name them.
 * - two or more sources with a bare one → `MCPP_CFG_BARE_SOURCE`, naming every bare one with a suggestion.
 * - otherwise an `aggregate` layout, sorted by name.
 *
 * Values are kept raw: a stdio command is a whole command line (no `args`; the supervisor splits it).
 *
 * @param flags - the parsed flags
 * @returns where the layout comes from
 * @throws McpPipeError `MCPP_CFG_SOURCE_CONFLICT`, `MCPP_CFG_AMBIGUOUS_SOURCES`, `MCPP_CFG_BARE_SOURCE`,
 *   `MCPP_NS_INVALID_NAME`, `MCPP_NS_DUPLICATE_NAME`, or `MCPP_CFG_INVALID` (a URL that is not http(s) or has a
 *   user name or password, an empty command)
 * @example From yargs
 * ```ts
 * const sources = resolveCliSources({ upstream: ['search=http://127.0.0.1:3001'], stdio: ['fs=npx -y @modelcontextprotocol/server-filesystem .'] });
 * if (sources.source === 'flags') console.log(sources.layout.mode); // 'aggregate'
 * ```
 */
export function resolveCliSources(flags: CliSourceFlags): CliSources {
  const sources = [
    ...(flags.upstream ?? []).map((raw) => splitCliSource('--upstream', raw)),
    ...(flags.stdio ?? []).map((raw) => splitCliSource('--stdio', raw)),
  ];
  if (flags.upstreamsFile !== undefined) {
    if (sources.length === 0) return { source: 'file', path: flags.upstreamsFile };
    throw new McpPipeError(
      'MCPP_CFG_SOURCE_CONFLICT',
      `--upstreams-file cannot be combined with --upstream or --stdio: list every upstream in ${flags.upstreamsFile}, or pass them all as flags`,
      { data: { upstreamsFile: flags.upstreamsFile, sources: sources.map((s) => s.raw) } },
    );
  }
  if (sources.length === 0) return { source: 'none' };
  for (const source of sources) if (source.name !== undefined) checkName(source);
  if (sources.length > 1 && sources.some((s) => s.name === undefined)) throw bareSourceError(sources);
  const byName = new Map<string, CliSource[]>();
  for (const s of sources) if (s.name !== undefined) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  for (const [name, same] of byName) {
    if (same.length < 2) continue;
    throw new McpPipeError(
      'MCPP_NS_DUPLICATE_NAME',
      `upstream name "${name}" is used ${same.length} times: upstream names must be unique within a layout (${same.map(formatCliSource).join(', ')})`,
      { data: { name, count: same.length, sources: same.map((s) => s.raw) } },
    );
  }
  const problems = sources.map(checkValue).filter((p): p is string => p !== undefined);
  if (problems.length > 0) {
    const message =
      problems.length === 1
        ? (problems[0] ?? '')
        : `invalid source flags:\n${problems.map((p) => `  - ${p}`).join('\n')}`;
    throw new McpPipeError('MCPP_CFG_INVALID', message, { data: { errors: problems, warnings: [] } });
  }
  const upstreams = sources.map((s) => toUpstream(s, s.name ?? suggestedName(s)));
  if (upstreams.length === 1) return { source: 'flags', layout: { mode: 'single', upstreams } };
  upstreams.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { source: 'flags', layout: { mode: 'aggregate', upstreams } };
}
