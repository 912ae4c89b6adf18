/**
 * Auto-detection (DESIGN.md A11): the MCP servers configured in local clients, de-duplicated and
 * named by the A11 sanitizing rule.
 */
import { readFile as fsReadFile } from 'node:fs/promises';
import { McpPipeError } from '@mcppipe/errors';
import type { EntryContext, UnnamedUpstream } from './clientEntry.js';
import { readClientEntry, serverIdentity } from './clientEntry.js';
import type { ClientConfigFile, ClientId, ClientLocationOptions } from './clientPaths.js';
import { clientConfigFiles, clientNames } from './clientPaths.js';
import type { PathSegment } from './issues.js';
import { formatPath, isRecord } from './issues.js';
import { describeReadError } from './errors.js';
import { parseJsonc } from './jsonc.js';
import { sanitizeUpstreamNames } from './names.js';
import type { Layout, UpstreamConfig } from './types.js';
import { parseTomlText } from './upstreamsFile.js';

/** Options of {@link detectClientServers}. */
export interface DetectOptions extends ClientLocationOptions {
  /** Reads a file as UTF-8. Default `fs.promises.readFile`. */
  readFile?: (path: string) => Promise<string>;
}

/** One place a detected server was found. */
export interface DetectedSource {
  /** The client's id. */
  client: ClientId;
  /** The client's human name (`Claude Desktop`). */
  clientName: string;
  /** `user`, `project` or `local` (see `ClientConfigFile`). */
  scope: ClientConfigFile['scope'];
  /** The file it is configured in. */
  file: string;
  /** The server's key in that file, as written. */
  key: string;
}

/** A server found in one or more clients. */
export interface DetectedServer {
  /** The valid, unique upstream name (the first source's key, sanitized). */
  name: string;
  /** The upstream, named `name`; strings kept raw (`${VAR}` unexpanded). */
  upstream: UpstreamConfig;
  /** Every place it was found, in detection order. */
  sources: DetectedSource[];
}

/** A key that had to change to become a valid, unique upstream name. */
export interface DetectedRename {
  /** The key as found in the client's file. */
  key: string;
  /** The upstream name it was given. */
  name: string;
}

/** What {@link detectClientServers} found. */
export interface DetectResult {
  /** The servers, de-duplicated, in detection order. */
  servers: DetectedServer[];
  /** Keys that are not valid, unique names as they stand (show them to the user). */
  renames: DetectedRename[];
  /** Files skipped (unreadable, malformed) and entries skipped, each starting with its file. */
  warnings: string[];
  /** Every file looked at, in order (most do not exist). */
  searched: string[];
}

function serverList(
  doc: unknown,
  spec: ClientConfigFile,
  cwd: string,
): { list: unknown; path: PathSegment[] } {
  if (!isRecord(doc)) return { list: undefined, path: [] };
  switch (spec.list) {
    case 'projects.mcpServers': {
      const projects = doc['projects'];
      const project = isRecord(projects) && Object.hasOwn(projects, cwd) ? projects[cwd] : undefined;
      return {
        list: isRecord(project) ? project['mcpServers'] : undefined,
        path: ['projects', cwd, 'mcpServers'],
      };
    }
    case 'mcpServers':
    case 'servers':
    case 'mcp_servers':
      return { list: doc[spec.list], path: [spec.list] };
    default: {
      const never: never = spec.list;
      return never;
    }
  }
}

function vscodeInputs(doc: unknown): Map<string, unknown> {
  const inputs = isRecord(doc) && Array.isArray(doc['inputs']) ? doc['inputs'] : [];
  return new Map(inputs.filter(isRecord).map((i) => [String(i['id']), i]));
}

/**
 * Finds the MCP servers configured in local clients (see `clientConfigFiles` for the table of
 * clients and paths). Missing files are skipped silently; unreadable or malformed files and unusable
 * entries are skipped with a warning. The same server (same command, args and env, or same URL) found
 * in several places is listed once with all its sources. Keys are sanitized into valid, unique
 * upstream names (lowercased, illegal characters replaced, `__` collapsed, `srv-` prefixed if needed).
 *
 * @param options - home and working directory, platform, environment, and an optional `readFile`
 * @returns the servers in detection order, the renames, the warnings and the files searched
 * @example Detecting
 * ```ts
 * const found = await detectClientServers({ homeDir: os.homedir(), cwd: process.cwd(), platform: process.platform, env: process.env });
 * for (const s of found.servers) console.log(s.name, s.sources.map((x) => x.clientName).join(', '));
 * ```
 */
export async function detectClientServers(options: DetectOptions): Promise<DetectResult> {
  const read = options.readFile ?? ((path: string) => fsReadFile(path, 'utf8'));
  const files = clientConfigFiles(options);
  const warnings: string[] = [];
  const found = new Map<string, { upstream: UnnamedUpstream; sources: DetectedSource[] }>();
  const parsed = new Map<string, Promise<unknown>>();
  const load = (spec: ClientConfigFile): Promise<unknown> => {
    let p = parsed.get(spec.file);
    if (p === undefined) {
      p = read(spec.file).then(
        (text) => {
          try {
            return spec.format === 'toml' ? parseTomlText(text, spec.file) : parseJsonc(text, spec.file);
          } catch (err) {
            warnings.push(`${(err as Error).message}; skipped`);
            return undefined;
          }
        },
        (err: unknown) => {
          const code = (err as NodeJS.ErrnoException).code;
          if (code !== 'ENOENT' && code !== 'ENOTDIR')
            warnings.push(`${spec.file}: cannot read: ${describeReadError(err)}; skipped`);
          return undefined;
        },
      );
      parsed.set(spec.file, p);
    }
    return p;
  };
  for (const spec of files) {
    const doc = await load(spec);
    if (doc === undefined) continue;
    const { list, path } = serverList(doc, spec, options.cwd);
    if (list === undefined) continue;
    if (!isRecord(list)) {
      warnings.push(`${spec.file}: ${formatPath(path)}: not an object; skipped`);
      continue;
    }
    const ctx: EntryContext = {
      client: spec.client,
      cwd: options.cwd,
      homeDir: options.homeDir,
      inputs: spec.client === 'vscode' ? vscodeInputs(doc) : new Map(),
    };
    for (const [key, entry] of Object.entries(list)) {
      const result = readClientEntry(entry, ctx);
      if ('skip' in result)
        warnings.push(`${spec.file}: ${formatPath([...path, key])}: ${result.skip}; skipped`);
      if (!('upstream' in result)) continue;
      const source: DetectedSource = {
        client: spec.client,
        clientName: clientNames[spec.client],
        scope: spec.scope,
        file: spec.file,
        key,
      };
      const id = serverIdentity(result.upstream);
      const existing = found.get(id);
      if (existing) existing.sources.push(source);
      else found.set(id, { upstream: result.upstream, sources: [source] });
    }
  }
  const entries = [...found.values()];
  const { names, renames } = sanitizeUpstreamNames(entries.map((e) => e.sources[0]?.key ?? ''));
  const servers = entries.map((e, i) => {
    const name = names[i] ?? '';
    return { name, upstream: { name, ...e.upstream } as UpstreamConfig, sources: e.sources };
  });
  return {
    servers,
    renames: renames.map((r) => ({ key: r.key, name: r.name })),
    warnings,
    searched: [...new Set(files.map((f) => f.file))],
  };
}

/**
 * The layout for detected servers: all of them, or those named in `select` (A11: headless takes all;
 * a TTY asks). One server is `single`; more are `aggregate`, sorted by name.
 *
 * @param servers - from {@link detectClientServers}
 * @param select - upstream names to keep. Default: all
 * @returns the layout
 * @throws McpPipeError `MCPP_CFG_NO_SOURCES` when nothing is left; `MCPP_CFG_INVALID` for a name in `select` that was not detected
 * @example Headless
 * ```ts
 * const layout = layoutFromDetected(found.servers);
 * ```
 */
export function layoutFromDetected(servers: readonly DetectedServer[], select?: readonly string[]): Layout {
  if (select !== undefined) {
    const unknown = select.filter((n) => !servers.some((s) => s.name === n));
    if (unknown.length > 0) {
      const errors = unknown.map((n) => `${JSON.stringify(n)} is not a detected server`);
      throw new McpPipeError('MCPP_CFG_INVALID', `cannot select ${errors.join(', ')}`, {
        data: { errors, warnings: [] },
      });
    }
  }
  const upstreams = servers
    .filter((s) => select === undefined || select.includes(s.name))
    .map((s) => s.upstream);
  if (upstreams.length === 0) {
    throw new McpPipeError(
      'MCPP_CFG_NO_SOURCES',
      servers.length === 0
        ? 'no upstreams: no MCP servers were found in local MCP clients; pass --upstream URL, --stdio "command" or --upstreams-file FILE'
        : 'no upstreams: no detected server was selected; select at least one, or pass --upstream URL, --stdio "command" or --upstreams-file FILE',
    );
  }
  if (upstreams.length === 1) return { mode: 'single', upstreams };
  return {
    mode: 'aggregate',
    upstreams: [...upstreams].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
}
