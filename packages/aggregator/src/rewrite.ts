/**
 * Rewrites the few places of upstream results that name a resource, so that every URI an agent sees can
 * be read back through the aggregator (DESIGN.md A2). Everything else is passed by reference: objects
 * are copied only along the path to a rewritten URI, and a result without such places is returned as is.
 *
 * Rewritten: `resource_link` content items and embedded `resource` items (tool results, prompt
 * messages), `contents[].uri` of `resources/read`, and the MCP Apps UI reference of a tool definition
 * (`_meta.ui.resourceUri`, and the older flat key `_meta["ui/resourceUri"]`).
 */
import { wrapResourceUri } from '@mcppipe/namespace';

type Obj = Record<string, unknown>;

/** @internal Whether `v` is a JSON object (not null, not an array): the package's one check. */
export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Wraps `uri` for `upstream`, or returns undefined when it cannot be wrapped (not a string, bad UTF-16). */
export function tryWrap(upstream: string, uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined;
  try {
    return wrapResourceUri(upstream, uri);
  } catch {
    return undefined;
  }
}

/** One content block with its resource URI wrapped, or the same block. */
function wrapContentBlock(upstream: string, block: unknown): unknown {
  if (!isObj(block)) return block;
  if (block['type'] === 'resource_link') {
    const uri = tryWrap(upstream, block['uri']);
    return uri === undefined ? block : { ...block, uri };
  }
  if (block['type'] === 'resource' && isObj(block['resource'])) {
    const uri = tryWrap(upstream, block['resource']['uri']);
    return uri === undefined ? block : { ...block, resource: { ...block['resource'], uri } };
  }
  return block;
}

function hasResourceBlock(content: readonly unknown[]): boolean {
  for (const block of content) {
    if (isObj(block) && (block['type'] === 'resource_link' || block['type'] === 'resource')) return true;
  }
  return false;
}

/**
 * Wraps the URIs of `resource_link` and embedded `resource` items in a content array.
 *
 * @returns the same array when it holds no such item
 */
export function wrapContent(upstream: string, content: unknown): unknown {
  if (!Array.isArray(content) || !hasResourceBlock(content)) return content;
  return content.map((block) => wrapContentBlock(upstream, block));
}

/** A `tools/call` result with its resource URIs wrapped (same object when there are none). */
export function wrapCallToolResult(upstream: string, result: Obj): Obj {
  const content = wrapContent(upstream, result['content']);
  return content === result['content'] ? result : { ...result, content };
}

/** A `prompts/get` result with the resource URIs of its messages wrapped (same object when there are none). */
export function wrapPromptResult(upstream: string, result: Obj): Obj {
  const messages = result['messages'];
  if (!Array.isArray(messages)) return result;
  let changed = false;
  const next = messages.map((message: unknown) => {
    if (!isObj(message)) return message;
    const content = message['content'];
    const wrapped = Array.isArray(content)
      ? wrapContent(upstream, content)
      : wrapContentBlock(upstream, content);
    if (wrapped === content) return message;
    changed = true;
    return { ...message, content: wrapped };
  });
  return changed ? { ...result, messages: next } : result;
}

/**
 * A `resources/read` result with `contents[].uri` wrapped. The content of the URI the agent asked for gets
 * exactly the URI the agent sent (a template expansion keeps its `mcppipe+t://` form); others are wrapped.
 */
export function wrapReadResult(
  upstream: string,
  result: Obj,
  asked: { original: string; exposed: string },
): Obj {
  const contents = result['contents'];
  if (!Array.isArray(contents)) return result;
  const next = contents.map((item: unknown) => {
    if (!isObj(item) || typeof item['uri'] !== 'string') return item;
    const uri = item['uri'] === asked.original ? asked.exposed : tryWrap(upstream, item['uri']);
    return uri === undefined ? item : { ...item, uri };
  });
  return { ...result, contents: next };
}

/** A tool definition exposed under `exposed`, with its MCP Apps UI resource reference wrapped. */
export function exposeTool(upstream: string, tool: Obj, exposed: string): Obj {
  const out: Obj = { ...tool, name: exposed };
  const meta = tool['_meta'];
  if (!isObj(meta)) return out;
  let nextMeta: Obj | undefined;
  const ui = meta['ui'];
  if (isObj(ui) && typeof ui['resourceUri'] === 'string') {
    const uri = tryWrap(upstream, ui['resourceUri']);
    if (uri !== undefined) nextMeta = { ...meta, ui: { ...ui, resourceUri: uri } };
  }
  const flat = meta['ui/resourceUri'];
  if (typeof flat === 'string') {
    const uri = tryWrap(upstream, flat);
    if (uri !== undefined) nextMeta = { ...(nextMeta ?? meta), 'ui/resourceUri': uri };
  }
  if (nextMeta !== undefined) out['_meta'] = nextMeta;
  return out;
}
