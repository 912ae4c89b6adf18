/**
 * The gateway's `mcp.json` (seed 001): the `mcpServers` shape of Claude Desktop and Claude Code, plus
 * `"hub": false`, two mcppipe extensions (`protocol`, `startTimeoutSecs`) and a top-level `policies` section
 * (tool policies and rate limits, DESIGN.md P1–P3, validated by `@mcppipe/policy`).
 */
import type { PolicyConfig } from '@mcppipe/policy';
import { validatePolicyConfig } from '@mcppipe/policy';
import type { PathSegment } from './issues.js';
import { invalidConfigError } from './errors.js';
import { Issues, describeType, editDistance, formatPath, isRecord } from './issues.js';
import { parseJsoncWithDuplicates } from './jsonc.js';
import { isValidUpstreamName, validateUpstreamName } from './names.js';
import { readConfigText } from './readFile.js';
import type { FieldSpec, Rule } from './rules.js';
import {
  boolean,
  checkFields,
  httpUrl,
  nonEmptyString,
  positiveSecondsToMs,
  protocol,
  stringArray,
  stringMap,
} from './rules.js';
import type { Layout, ParseOptions, UpstreamConfig, ValidationResult } from './types.js';

/** The `type` of an `mcpServers` entry: `stdio` for `command` servers, the others for `url` servers. */
export type McpServerType = 'stdio' | 'http' | 'streamable-http' | 'sse';

const serverType: Rule<McpServerType> = (value, path, issues) => {
  if (value === 'stdio' || value === 'http' || value === 'streamable-http' || value === 'sse') return value;
  issues.error(path, 'must be one of "stdio", "http", "streamable-http", "sse"');
  return undefined;
};

/** The keys of one `mcpServers` entry. */
const SERVER_FIELDS: Readonly<Record<string, FieldSpec>> = {
  command: { rule: nonEmptyString, only: 'stdio' },
  args: { rule: stringArray, only: 'stdio' },
  env: { rule: stringMap('object'), only: 'stdio' },
  cwd: { rule: nonEmptyString, only: 'stdio' },
  url: { rule: httpUrl, only: 'http' },
  headers: { rule: stringMap('object'), only: 'http' },
  type: { rule: serverType },
  hub: { rule: boolean },
  protocol: { rule: protocol },
  startTimeoutSecs: { rule: positiveSecondsToMs },
};

/** Top-level keys that are accepted without a warning. */
const QUIET_TOP_LEVEL = new Set(['mcpServers', '$schema', 'policies']);

const KEY_OF = { stdio: '"command"', http: '"url"' } as const;

/**
 * Validates a parsed `mcp.json` (pure). Servers are returned sorted by name; names follow rule A6;
 * a `command` server without `args` gets `args: []` so its command is used verbatim (never split);
 * `"type": "sse"` implies `protocol: "legacy"` unless `protocol` is set. Unknown keys of a server are
 * errors; unknown top-level keys are warnings (the file may be a client's whole settings file).
 *
 * @param doc - the parsed JSON document
 * @returns an `aggregate` layout (the gateway always namespaces `/mcp`, so adding a server never renames tools), or every problem
 * @example Validating a document
 * ```ts
 * const result = validateMcpJson({ mcpServers: { github: { url: 'https://api.githubcopilot.com/mcp/' } } });
 * if (!result.ok) console.error(result.errors.join('\n'));
 * ```
 */
export function validateMcpJson(doc: unknown): ValidationResult<Layout> {
  const issues = new Issues();
  const upstreams: UpstreamConfig[] = [];
  if (!isRecord(doc)) {
    issues.error([], `must be an object with "mcpServers", not ${describeType(doc, 'object')}`);
    return { ok: false, errors: issues.errors, warnings: issues.warnings };
  }
  for (const key of Object.keys(doc)) {
    if (QUIET_TOP_LEVEL.has(key)) continue;
    issues.warn(
      [key],
      editDistance(key.toLowerCase(), 'mcpservers') <= 2
        ? 'unknown key, ignored; did you mean "mcpServers"?'
        : 'ignored (mcppipe reads only "mcpServers" and "policies")',
    );
  }
  const servers = doc['mcpServers'];
  if (servers === undefined) {
    issues.error(
      ['mcpServers'],
      'missing; add "mcpServers": { "<name>": { "command": "…" } or { "url": "…" } }',
    );
  } else if (!isRecord(servers)) {
    issues.error(
      ['mcpServers'],
      `must be an object mapping server names to servers, not ${describeType(servers, 'object')}`,
    );
  } else if (Object.keys(servers).length === 0) {
    issues.error(
      ['mcpServers'],
      'has no servers; add at least one "<name>": { "command": "…" } or { "url": "…" }',
    );
  } else {
    for (const name of Object.keys(servers).sort()) {
      const upstream = validateServer(name, servers[name], issues);
      if (upstream !== undefined) upstreams.push(upstream);
    }
  }
  const policies = doc['policies'];
  if (policies !== undefined) issues.errors.push(...validatePolicyConfig(policies, 'policies'));
  if (issues.errors.length > 0) return { ok: false, errors: issues.errors, warnings: issues.warnings };
  return {
    ok: true,
    config: {
      mode: 'aggregate',
      upstreams,
      ...(policies !== undefined && { policies: policies as PolicyConfig }),
    },
    warnings: issues.warnings,
  };
}

function validateServer(name: string, entry: unknown, issues: Issues): UpstreamConfig | undefined {
  const path: PathSegment[] = ['mcpServers', name];
  const before = issues.errors.length;
  if (!isValidUpstreamName(name)) {
    try {
      validateUpstreamName(name);
    } catch (err) {
      issues.error(path, (err as Error).message);
    }
  }
  if (!isRecord(entry)) {
    issues.error(path, `must be an object with "command" or "url", not ${describeType(entry, 'object')}`);
    return undefined;
  }
  const hasCommand = entry['command'] !== undefined;
  const hasUrl = entry['url'] !== undefined;
  if (hasCommand && hasUrl) issues.error(path, 'sets both "command" and "url"; set exactly one');
  if (!hasCommand && !hasUrl)
    issues.error(path, 'sets neither "command" (stdio) nor "url" (HTTP); set exactly one');
  const transport = hasUrl ? 'http' : 'stdio';
  const v = checkFields(entry, SERVER_FIELDS, {
    issues,
    path,
    transport: hasCommand && hasUrl ? undefined : transport,
    onlyMessage: (only) => `only valid with ${KEY_OF[only]} (this server sets ${KEY_OF[transport]})`,
  });
  const type = v['type'] as McpServerType | undefined;
  if (
    type !== undefined &&
    (hasCommand || hasUrl) &&
    !(hasCommand && hasUrl) &&
    (type === 'stdio') !== (transport === 'stdio')
  ) {
    issues.error(
      [...path, 'type'],
      `"${type}" is for ${type === 'stdio' ? '"command"' : '"url"'} servers; this server sets ${KEY_OF[transport]}`,
    );
  }
  if (issues.errors.length > before) return undefined;
  const proto = (v['protocol'] as UpstreamConfig['protocol']) ?? (type === 'sse' ? 'legacy' : undefined);
  const common = {
    ...(v['startTimeoutSecs'] !== undefined && { startTimeoutMs: v['startTimeoutSecs'] as number }),
    ...(proto !== undefined && { protocol: proto }),
    ...(v['hub'] !== undefined && { hub: v['hub'] as boolean }),
  };
  if (transport === 'http') {
    return {
      name,
      transport,
      url: v['url'] as string,
      ...(v['headers'] !== undefined && { headers: v['headers'] as Record<string, string> }),
      ...common,
    };
  }
  return {
    name,
    transport,
    command: v['command'] as string,
    args: (v['args'] as string[] | undefined) ?? [],
    ...(v['env'] !== undefined && { env: v['env'] as Record<string, string> }),
    ...(v['cwd'] !== undefined && { cwd: v['cwd'] as string }),
    ...common,
  };
}

/**
 * Parses and validates the text of an `mcp.json` (JSON; comments and trailing commas are accepted). A key
 * that appears twice in one object (`mcpServers.memory` twice) is an error naming the path and both lines:
 * JSON would keep the last one silently (DESIGN.md G1).
 *
 * @param text - the JSON text
 * @param path - the file name used in messages. Default `mcp.json`
 * @param options - `logger` receives each warning (`logger.warn({ path }, warning)`)
 * @returns the layout, as {@link validateMcpJson}
 * @throws McpPipeError `MCPP_CFG_SYNTAX` (with `file:line:column`) or `MCPP_CFG_INVALID` (`data.errors` lists every
 *   problem, duplicate keys included)
 * @example Parsing
 * ```ts
 * const layout = parseMcpJson('{ "mcpServers": { "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] } } }');
 * ```
 */
export function parseMcpJson(text: string, path = 'mcp.json', options: ParseOptions = {}): Layout {
  const { value, duplicates } = parseJsoncWithDuplicates(text, path);
  const result = validateMcpJson(value);
  const dupErrors = duplicates.map(
    (d) =>
      `${formatPath(d.path)}: duplicate key: ${formatPath(d.path)} at line ${d.firstLine} and ${formatPath(d.path)} at line ${d.line}; JSON would silently keep only the last, so remove or rename one`,
  );
  if (!result.ok || dupErrors.length > 0) {
    const errors = [...dupErrors, ...(result.ok ? [] : result.errors)];
    throw invalidConfigError(path, errors, { warnings: result.warnings, path });
  }
  for (const warning of result.warnings) options.logger?.warn({ path }, warning);
  return result.config;
}

/**
 * Reads, parses and validates the gateway's `mcp.json`.
 *
 * @param path - the file to read
 * @param options - `logger` receives each warning
 * @returns the layout, as {@link validateMcpJson}
 * @throws McpPipeError `MCPP_CFG_READ_FAILED`, `MCPP_CFG_SYNTAX` or `MCPP_CFG_INVALID`
 * @example Loading at boot
 * ```ts
 * const layout = await loadMcpJson('/config/mcp.json');
 * ```
 */
export async function loadMcpJson(path: string, options: ParseOptions = {}): Promise<Layout> {
  return parseMcpJson(await readConfigText(path), path, options);
}
