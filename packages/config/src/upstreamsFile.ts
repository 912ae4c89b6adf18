/**
 * The TOML upstreams file (DESIGN.md A8): one `[upstreams.<name>]` section per upstream, each with
 * exactly one of `http` or `stdio`, and an optional `[policy]` table (`default`, `[[policy.rules]]`,
 * `[[policy.limits]]`: tool policies and rate limits, DESIGN.md P1–P3, validated by `@mcppipe/policy`).
 */
import type { PolicyConfig } from '@mcppipe/policy';
import { validatePolicyConfig } from '@mcppipe/policy';
import { parse as parseToml } from 'toml';
import type { PathSegment } from './issues.js';
import { invalidConfigError, syntaxError } from './errors.js';
import { Issues, describeType, isRecord, unknownKeyMessage } from './issues.js';
import { isValidUpstreamName, validateUpstreamName } from './names.js';
import { readConfigText, stripBom } from './readFile.js';
import type { FieldSpec, Rule } from './rules.js';
import {
  boolean,
  checkFields,
  httpUrl,
  nonEmptyString,
  positiveSecondsToMs,
  protocol,
  stringMap,
} from './rules.js';
import type { Layout, ParseOptions, UpstreamConfig, ValidationResult } from './types.js';

/** `stdio`: a command line, or an argv array whose first element is the executable. */
const commandLine: Rule<string | string[]> = (value, path, issues) => {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((v) => typeof v === 'string') &&
    value[0] !== ''
  ) {
    return value as string[];
  }
  issues.error(path, 'must be a command line string or a non-empty array of strings');
  return undefined;
};

/** The keys of one `[upstreams.<name>]` section. */
const SECTION_FIELDS: Readonly<Record<string, FieldSpec>> = {
  http: { rule: httpUrl, only: 'http' },
  stdio: { rule: commandLine, only: 'stdio' },
  env: { rule: stringMap('table'), only: 'stdio' },
  cwd: { rule: nonEmptyString, only: 'stdio' },
  headers: { rule: stringMap('table'), only: 'http' },
  start_timeout_secs: { rule: positiveSecondsToMs },
  hub: { rule: boolean },
  protocol: { rule: protocol },
};

const NO_SECTIONS =
  'no [upstreams.<name>] sections; add one per upstream, with http = "URL" or stdio = "command"';

/**
 * Validates a parsed upstreams file (pure): sections are read alphabetically, names checked by the
 * A6 rule, each section must set exactly one of `http` or `stdio`, unknown keys are rejected.
 *
 * @param doc - the parsed TOML document
 * @returns the layout (`single` for one section, else `aggregate`), or every problem, dot-path first
 * @example Validating a document
 * ```ts
 * const result = validateUpstreamsToml({ upstreams: { search: { http: 'http://127.0.0.1:3001' } } });
 * if (result.ok) console.log(result.config.mode); // 'single'
 * ```
 */
export function validateUpstreamsToml(doc: unknown): ValidationResult<Layout> {
  const issues = new Issues();
  const upstreams: UpstreamConfig[] = [];
  if (!isRecord(doc)) {
    issues.error([], `must be a table, not ${describeType(doc, 'table')}`);
    return { ok: false, errors: issues.errors, warnings: issues.warnings };
  }
  for (const key of Object.keys(doc)) {
    if (key !== 'upstreams' && key !== 'policy')
      issues.error([key], unknownKeyMessage(key, ['upstreams', 'policy']));
  }
  const sections = doc['upstreams'];
  if (sections === undefined) {
    issues.error(['upstreams'], NO_SECTIONS);
  } else if (!isRecord(sections)) {
    issues.error(
      ['upstreams'],
      `must be a table of [upstreams.<name>] sections, not ${describeType(sections, 'table')}`,
    );
  } else if (Object.keys(sections).length === 0) {
    issues.error(['upstreams'], NO_SECTIONS);
  } else {
    for (const name of Object.keys(sections).sort()) {
      const upstream = validateSection(name, sections[name], issues);
      if (upstream !== undefined) upstreams.push(upstream);
    }
  }
  const policy = doc['policy'];
  if (policy !== undefined) issues.errors.push(...validatePolicyConfig(policy, 'policy'));
  if (issues.errors.length > 0) return { ok: false, errors: issues.errors, warnings: issues.warnings };
  return {
    ok: true,
    config: {
      mode: upstreams.length === 1 ? 'single' : 'aggregate',
      upstreams,
      ...(policy !== undefined && { policies: policy as PolicyConfig }),
    },
    warnings: issues.warnings,
  };
}

function validateSection(name: string, section: unknown, issues: Issues): UpstreamConfig | undefined {
  const path: PathSegment[] = ['upstreams', name];
  const before = issues.errors.length;
  if (!isValidUpstreamName(name)) nameError(name, path, issues);
  if (!isRecord(section)) {
    issues.error(
      path,
      `must be a table with http = "URL" or stdio = "command", not ${describeType(section, 'table')}`,
    );
    return undefined;
  }
  const hasHttp = section['http'] !== undefined;
  const hasStdio = section['stdio'] !== undefined;
  if (hasHttp && hasStdio) issues.error(path, 'sets both "http" and "stdio"; set exactly one');
  if (!hasHttp && !hasStdio) issues.error(path, 'sets neither "http" nor "stdio"; set exactly one');
  const transport = hasHttp ? 'http' : 'stdio';
  const v = checkFields(section, SECTION_FIELDS, {
    issues,
    path,
    transport: hasHttp && hasStdio ? undefined : transport,
    onlyMessage: (only) => `only valid with ${only} (this upstream sets ${transport})`,
  });
  if (issues.errors.length > before) return undefined;
  return buildUpstream(name, transport, v);
}

function nameError(name: string, path: PathSegment[], issues: Issues): void {
  try {
    validateUpstreamName(name);
  } catch (err) {
    issues.error(path, (err as Error).message);
  }
}

function buildUpstream(
  name: string,
  transport: 'http' | 'stdio',
  v: Record<string, unknown>,
): UpstreamConfig {
  const common = {
    ...(v['start_timeout_secs'] !== undefined && { startTimeoutMs: v['start_timeout_secs'] as number }),
    ...(v['protocol'] !== undefined && { protocol: v['protocol'] as UpstreamConfig['protocol'] }),
    ...(v['hub'] !== undefined && { hub: v['hub'] as boolean }),
  };
  if (transport === 'http') {
    return {
      name,
      transport,
      url: v['http'] as string,
      ...(v['headers'] !== undefined && { headers: v['headers'] as Record<string, string> }),
      ...common,
    };
  }
  const stdio = v['stdio'] as string | string[];
  return {
    name,
    transport,
    ...(typeof stdio === 'string' ? { command: stdio } : { command: stdio[0] ?? '', args: stdio.slice(1) }),
    ...(v['env'] !== undefined && { env: v['env'] as Record<string, string> }),
    ...(v['cwd'] !== undefined && { cwd: v['cwd'] as string }),
    ...common,
  };
}

/** The shape of the errors `toml@5` throws: peggy syntax errors carry `location`, compiler errors `line`/`column`. */
interface TomlParseError {
  message: string;
  line?: number;
  column?: number;
  found?: string | null;
  location?: { start: { line: number; column: number } };
}

/**
 * Parses TOML text, turning parser errors into `MCPP_CFG_SYNTAX` with `file:line:column`.
 *
 * @throws McpPipeError `MCPP_CFG_SYNTAX`
 */
export function parseTomlText(text: string, path: string): unknown {
  try {
    return parseToml(stripBom(text)) as unknown;
  } catch (err) {
    const e = err as TomlParseError;
    const line = e.location?.start.line ?? e.line ?? 1;
    const column = e.location?.start.column ?? e.column ?? 1;
    let detail: string;
    if (e.location !== undefined) {
      detail =
        e.found === null || e.found === undefined
          ? 'unexpected end of file'
          : e.found === '\n' || e.found === '\r'
            ? 'unexpected end of line'
            : `unexpected ${JSON.stringify(e.found)}`;
    } else {
      detail = e.message.replace(/\.$/, '').replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase());
    }
    throw Object.assign(syntaxError('TOML', { path, line, column }, detail), { cause: err });
  }
}

/**
 * Parses and validates the text of an upstreams file.
 *
 * @param text - the TOML text
 * @param path - the file name used in messages. Default `upstreams file`
 * @param options - `logger` receives each warning (`logger.warn({ path }, warning)`)
 * @returns the layout: `single` for one section, else `aggregate` with sections in alphabetical order
 * @throws McpPipeError `MCPP_CFG_SYNTAX` (with `file:line:column`) or `MCPP_CFG_INVALID` (`data.errors` lists every problem)
 * @example Two upstreams
 * ```ts
 * const layout = parseUpstreamsToml('[upstreams.search]\nhttp = "http://127.0.0.1:3001"\n', 'tunnel.toml');
 * ```
 */
export function parseUpstreamsToml(
  text: string,
  path = 'upstreams file',
  options: ParseOptions = {},
): Layout {
  const result = validateUpstreamsToml(parseTomlText(text, path));
  if (!result.ok) throw invalidConfigError(path, result.errors, { warnings: result.warnings, path });
  for (const warning of result.warnings) options.logger?.warn({ path }, warning);
  return result.config;
}

/**
 * Reads, parses and validates an upstreams file (`--upstreams-file`).
 *
 * @param path - the file to read
 * @param options - `logger` receives each warning
 * @returns the layout, as {@link parseUpstreamsToml}
 * @throws McpPipeError `MCPP_CFG_READ_FAILED`, `MCPP_CFG_SYNTAX` or `MCPP_CFG_INVALID`
 * @example Loading `--upstreams-file`
 * ```ts
 * const layout = await loadUpstreamsFile('./tunnel.toml');
 * ```
 */
export async function loadUpstreamsFile(path: string, options: ParseOptions = {}): Promise<Layout> {
  return parseUpstreamsToml(await readConfigText(path), path, options);
}
