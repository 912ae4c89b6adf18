import type { Tool } from '@modelcontextprotocol/server';
import { invalidArgumentsError } from './errors.js';
import type { HubError } from './errors.js';

/** The names of the four meta-tools. */
export type MetaToolName = 'list_servers' | 'list_tools' | 'get_tool' | 'call_tool';

const server = { type: 'string', description: 'Server name, from list_servers.' } as const;
const tool = { type: 'string', description: 'Tool name, from list_tools.' } as const;
const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

/**
 * The four meta-tool definitions, exactly as `tools/list` returns them. Input schemas are strict
 * (`additionalProperties: false`); the three lookups are read-only, `call_tool` is not.
 *
 * @example Listing the meta-tools without a hub (docs, token estimates)
 * ```ts
 * import { metaTools } from '@mcppipe/hub';
 * metaTools.map((t) => t.name); // ['list_servers', 'list_tools', 'get_tool', 'call_tool']
 * ```
 */
export const metaTools: readonly Tool[] = [
  {
    name: 'list_servers',
    title: 'List servers',
    description: 'List the MCP servers behind this hub: name, phase, a one-line description and tool count.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: readOnly,
  },
  {
    name: 'list_tools',
    title: 'List tools',
    description: "List one server's tools: names and one-line descriptions, without schemas.",
    inputSchema: {
      type: 'object',
      properties: { server },
      required: ['server'],
      additionalProperties: false,
    },
    annotations: readOnly,
  },
  {
    name: 'get_tool',
    title: 'Get tool',
    description:
      "Get one tool's full definition (input and output schema, annotations). Read it before call_tool.",
    inputSchema: {
      type: 'object',
      properties: { server, tool },
      required: ['server', 'tool'],
      additionalProperties: false,
    },
    annotations: readOnly,
  },
  {
    name: 'call_tool',
    title: 'Call tool',
    description: "Call a tool on a server. The server's result is returned unchanged.",
    inputSchema: {
      type: 'object',
      properties: {
        server,
        tool,
        arguments: { type: 'object', description: "The tool's arguments, matching its inputSchema." },
      },
      required: ['server', 'tool'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, openWorldHint: true },
  },
];

/** Validated arguments of each meta-tool. */
export interface MetaToolArgs {
  list_servers: Record<string, never>;
  list_tools: { server: string };
  get_tool: { server: string; tool: string };
  call_tool: { server: string; tool: string; arguments: Record<string, unknown> };
}

const SPEC: { [K in MetaToolName]: { required: string[]; optional: string[] } } = {
  list_servers: { required: [], optional: [] },
  list_tools: { required: ['server'], optional: [] },
  get_tool: { required: ['server', 'tool'], optional: [] },
  call_tool: { required: ['server', 'tool'], optional: ['arguments'] },
};

/** Whether `name` is one of the four meta-tools. */
export function isMetaToolName(name: string): name is MetaToolName {
  return Object.hasOwn(SPEC, name);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks `args` against the meta-tool's input schema (the JSON Schema above, enforced by hand so that both
 * eras and every transport validate the same way).
 *
 * @param name - the meta-tool
 * @param args - `params.arguments` as received (absent means `{}`)
 * @returns the typed arguments, or a `MCPP_HUB_INVALID_ARGUMENTS` error saying what is wrong
 */
export function parseMetaToolArgs<N extends MetaToolName>(
  name: N,
  args: unknown,
): { ok: true; args: MetaToolArgs[N] } | { ok: false; error: HubError } {
  const fail = (problem: string) => ({ ok: false as const, error: invalidArgumentsError(name, problem) });
  const input = args ?? {};
  if (!isPlainObject(input)) return fail('expected a JSON object');
  const { required, optional } = SPEC[name];
  const allowed = [...required, ...optional];
  const unknown = Object.keys(input).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    const expected = allowed.length ? `expected only ${allowed.join(', ')}` : 'it takes no arguments';
    return fail(`unknown propert${unknown.length > 1 ? 'ies' : 'y'} ${unknown.join(', ')}; ${expected}`);
  }
  for (const key of required) {
    const value = input[key];
    if (value === undefined) return fail(`missing required property ${key}`);
    if (typeof value !== 'string' || value.length === 0) return fail(`${key} must be a non-empty string`);
  }
  if (name === 'call_tool') {
    const toolArgs = input['arguments'] ?? {};
    if (!isPlainObject(toolArgs)) return fail('arguments must be a JSON object');
    return { ok: true, args: { ...input, arguments: toolArgs } as MetaToolArgs[N] };
  }
  return { ok: true, args: input as MetaToolArgs[N] };
}
