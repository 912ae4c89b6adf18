/**
 * Turns one upstream's raw list into what agents see (DESIGN.md A1, A2, A15): tools and prompts get
 * `<upstream>__<name>` (rewritten by `fitNames` where it is too long or holds characters model APIs
 * reject, each name distinct), resources and templates get wrapped
 * URIs. Each item is checked against the SDK's spec schema first; an invalid item is dropped alone, with
 * the reason, never the whole list. Items are copied shallowly: everything but the rewritten field keeps
 * its identity, so definitions reach agents byte-identical except the name.
 */
import { fitNames, prefixName, wrapResourceTemplate, wrapResourceUri } from '@mcppipe/namespace';
import { specTypeSchemas } from '@modelcontextprotocol/server';
import { exposeTool } from './rewrite.js';
import type { DroppedItem, ListKind, RenamedItem } from './types.js';

type Obj = Record<string, unknown>;

/** One upstream list as served. */
export interface ExposedList {
  items: Obj[];
  /** Tools and prompts: exposed name → original name (the lookup table for calls). */
  names: Map<string, string>;
  dropped: DroppedItem[];
  renamed: RenamedItem[];
}

const SCHEMA_OF = {
  tools: specTypeSchemas.Tool,
  prompts: specTypeSchemas.Prompt,
  resources: specTypeSchemas.Resource,
  resourceTemplates: specTypeSchemas.ResourceTemplate,
} as const;

/** Why `item` is not a valid spec item of `kind`, or undefined when it is. */
export function invalidReason(kind: ListKind, item: unknown): string | undefined {
  const result = SCHEMA_OF[kind]['~standard'].validate(item);
  if (result instanceof Promise) return undefined;
  if (result.issues === undefined) return undefined;
  const first = result.issues[0];
  const path = first?.path?.map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.') ?? '';
  return `invalid ${kind === 'resourceTemplates' ? 'resource template' : kind.slice(0, -1)}: ${path ? `${path}: ` : ''}${first?.message ?? 'schema mismatch'}`;
}

/** The characters model APIs accept in a tool name (DESIGN.md A15). */
const MODEL_API_CHARS = /^[A-Za-z0-9_-]*$/;

/** Why `fitNames` gave `original` another name: characters model APIs reject, or only its length. */
function renameReason(original: string): RenamedItem['reason'] {
  return MODEL_API_CHARS.test(original) ? 'shortened' : 'characters';
}

function nameOf(item: unknown, field: string): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const v = (item as Obj)[field];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Exposes the raw items of one upstream list.
 *
 * @param list - the upstream name, which list, and the exposed-name budget for tools and prompts
 * @param raw - the items as the upstream listed them, all pages
 */
export function exposeList(
  list: { upstream: string; kind: ListKind; maxNameLength: number },
  raw: readonly unknown[],
): ExposedList {
  const { upstream, kind, maxNameLength } = list;
  const out: ExposedList = { items: [], names: new Map(), dropped: [], renamed: [] };
  const field = kind === 'resources' ? 'uri' : kind === 'resourceTemplates' ? 'uriTemplate' : 'name';
  const valid: { item: unknown; name: string; index: number }[] = [];
  raw.forEach((item, index) => {
    const reason = invalidReason(kind, item);
    const name = nameOf(item, field);
    if (reason !== undefined || name === undefined) {
      out.dropped.push({
        kind,
        ...(name === undefined ? {} : { name }),
        index,
        reason: reason ?? `no ${field}`,
      });
      return;
    }
    valid.push({ item, name, index });
  });
  // Tools and prompts: the whole list is fitted at once, so no two names can meet (A15).
  const fitted =
    kind === 'tools' || kind === 'prompts'
      ? fitNames(
          upstream,
          valid.map((v) => v.name),
          { maxLength: maxNameLength },
        )
      : new Map<string, string>();
  for (const { item, name, index } of valid) {
    const obj = item as Obj;
    switch (kind) {
      case 'tools':
      case 'prompts': {
        const exposed = fitted.get(name) ?? prefixName(upstream, name);
        const clash = out.names.get(exposed);
        if (clash !== undefined) {
          // the same original name listed twice
          out.dropped.push({
            kind,
            name,
            index,
            reason: `exposed name ${exposed} is already taken by ${JSON.stringify(clash)}`,
          });
          continue;
        }
        out.names.set(exposed, name);
        if (exposed !== prefixName(upstream, name)) {
          out.renamed.push({ kind, original: name, exposed, reason: renameReason(name) });
        }
        out.items.push(kind === 'tools' ? exposeTool(upstream, obj, exposed) : { ...obj, name: exposed });
        continue;
      }
      case 'resources':
        try {
          out.items.push({ ...obj, uri: wrapResourceUri(upstream, name) });
        } catch (err) {
          out.dropped.push({ kind, name, index, reason: err instanceof Error ? err.message : String(err) });
        }
        continue;
      case 'resourceTemplates':
        out.items.push({ ...obj, uriTemplate: wrapResourceTemplate(upstream, name) });
        continue;
      default: {
        const never: never = kind;
        throw new Error(`unknown list kind ${String(never)}`);
      }
    }
  }
  return out;
}
