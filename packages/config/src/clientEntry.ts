/**
 * Turns one server entry of a client's config file into an upstream, leniently: clients add keys of
 * their own (`autoApprove`, `trust`, `timeout`, …), which are ignored. Only what mcppipe needs is read.
 */
import type { ClientId } from './clientPaths.js';
import { isRecord } from './issues.js';
import { hasUrlCredentials } from './redactUrl.js';
import { URL_CREDENTIALS_PROBLEM } from './rules.js';
import type { UpstreamConfig } from './types.js';

/** An upstream without its name (names are assigned after de-duplication). */
export type UnnamedUpstream =
  | Omit<Extract<UpstreamConfig, { transport: 'stdio' }>, 'name'>
  | Omit<Extract<UpstreamConfig, { transport: 'http' }>, 'name'>;

/** The outcome for one entry: an upstream, a skip with a reason (warned), or a silent skip (disabled). */
export type EntryResult = { upstream: UnnamedUpstream } | { skip: string } | { disabled: true };

/** What {@link readClientEntry} needs besides the entry. */
export interface EntryContext {
  client: ClientId;
  cwd: string;
  homeDir: string;
  /** VS Code `inputs` by id (only `default` values can be used; mcppipe cannot prompt). */
  inputs: ReadonlyMap<string, unknown>;
}

/** Client variable syntax that mcppipe rewrites: VS Code/Cursor `${workspaceFolder}`, `${userHome}`, `${env:X}`, `${input:x}`. */
const CLIENT_VARIABLE = /\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*)|input:[^}]+)\}/g;

function substitute(value: string, ctx: EntryContext, missing: Set<string>): string {
  if (ctx.client !== 'vscode' && ctx.client !== 'cursor') return value;
  return value.replace(CLIENT_VARIABLE, (match: string, what: string, envName?: string) => {
    if (what === 'workspaceFolder') return ctx.cwd;
    if (what === 'userHome') return ctx.homeDir;
    if (envName !== undefined) return `\${${envName}}`;
    const input = ctx.inputs.get(what.slice('input:'.length));
    const fallback = isRecord(input) ? input['default'] : undefined;
    if (typeof fallback === 'string') return fallback;
    missing.add(match);
    return match;
  });
}

function stringRecord(value: unknown): Record<string, string> | undefined | false {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return false;
  const entries: [string, string][] = [];
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') entries.push([k, v]);
    else if (typeof v === 'number' || typeof v === 'boolean') entries.push([k, String(v)]);
    else return false;
  }
  return Object.fromEntries(entries);
}

function firstString(entry: Record<string, unknown>, keys: readonly string[]): [string, string] | undefined {
  for (const key of keys) {
    const v = entry[key];
    if (typeof v === 'string' && v.trim() !== '') return [key, v];
  }
  return undefined;
}

/**
 * Reads one server entry.
 *
 * - stdio: `command` (+ `args`, `env`, `cwd`); `args` defaults to `[]`, so the command is used verbatim.
 * - HTTP: `url`, Windsurf's `serverUrl` or Gemini's `httpUrl` (+ `headers`, Codex `http_headers`,
 *   `env_http_headers` and `bearer_token_env_var` as `${VAR}` references). SSE endpoints (`type: "sse"`,
 *   Gemini's `url`) get `protocol: "legacy"`.
 * - `disabled: true` or `enabled: false` entries are skipped silently.
 */
export function readClientEntry(entry: unknown, ctx: EntryContext): EntryResult {
  if (!isRecord(entry)) return { skip: 'not an object' };
  if (entry['disabled'] === true || entry['enabled'] === false) return { disabled: true };
  const missing = new Set<string>();
  const sub = (s: string): string => substitute(s, ctx, missing);
  const subMap = (m: Record<string, string> | undefined): Record<string, string> | undefined =>
    m && Object.fromEntries(Object.entries(m).map(([k, v]) => [k, sub(v)]));
  const type = entry['type'];
  const timeoutSecs = entry['startup_timeout_sec'];
  const common = {
    ...(typeof timeoutSecs === 'number' &&
      timeoutSecs > 0 && { startTimeoutMs: Math.round(timeoutSecs * 1000) }),
  };
  let result: EntryResult;
  const command = firstString(entry, ['command']);
  const url = firstString(entry, ['url', 'serverUrl', 'httpUrl']);
  if (command !== undefined && url !== undefined) return { skip: 'sets both "command" and a URL' };
  if (command !== undefined) {
    const args = entry['args'] ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))
      return { skip: '"args" is not an array of strings' };
    const env = stringRecord(entry['env']);
    if (env === false) return { skip: '"env" is not an object of strings' };
    const cwd = typeof entry['cwd'] === 'string' && entry['cwd'] !== '' ? entry['cwd'] : undefined;
    result = {
      upstream: {
        transport: 'stdio',
        command: sub(command[1]),
        args: args.map(sub),
        ...(env && { env: subMap(env) }),
        ...(cwd !== undefined && { cwd: sub(cwd) }),
        ...common,
      },
    };
  } else if (url !== undefined) {
    const plain = stringRecord(entry['headers'] ?? entry['http_headers']);
    const fromEnv = stringRecord(entry['env_http_headers']);
    if (plain === false || fromEnv === false) return { skip: 'headers are not an object of strings' };
    const bearer = entry['bearer_token_env_var'];
    const headers: Record<string, string> = Object.fromEntries([
      ...Object.entries(subMap(plain) ?? {}),
      ...Object.entries(fromEnv ?? {}).map(([k, v]) => [k, `\${${v}}`]),
      ...(typeof bearer === 'string' && bearer !== '' ? [['Authorization', `Bearer \${${bearer}}`]] : []),
    ]) as Record<string, string>;
    const sse = type === 'sse' || (ctx.client === 'gemini-cli' && url[0] === 'url');
    const resolved = sub(url[1]);
    if (!/^https?:\/\//i.test(resolved) && !resolved.startsWith('${'))
      return { skip: 'the URL is not http:// or https://' };
    if (hasUrlCredentials(resolved)) return { skip: `the URL ${URL_CREDENTIALS_PROBLEM}` };
    result = {
      upstream: {
        transport: 'http',
        url: resolved,
        ...(Object.keys(headers).length > 0 && { headers }),
        ...common,
        ...(sse && { protocol: 'legacy' as const }),
      },
    };
  } else {
    return { skip: 'has neither "command" nor "url"' };
  }
  if (missing.size > 0) {
    return {
      skip: `uses ${[...missing].join(', ')} without a default; mcppipe cannot prompt for VS Code inputs`,
    };
  }
  return result;
}

/**
 * The identity of a server for de-duplication across clients: the same command, args and env, or
 * the same URL.
 */
export function serverIdentity(upstream: UnnamedUpstream): string {
  if (upstream.transport === 'http') return JSON.stringify(['http', upstream.url]);
  const env = Object.entries(upstream.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(['stdio', upstream.command, upstream.args ?? [], env]);
}
