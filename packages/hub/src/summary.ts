import { SUMMARY_MAX_CHARS } from './defaults.js';

/**
 * The first non-empty line of `text`, trimmed and cut at `max` characters (with `…`), or undefined when there is
 * no text. Used for the one-line descriptions of `list_servers` and `list_tools`.
 *
 * @param text - a description or instructions, possibly multi-line
 * @param max - the maximum length, default 200
 */
export function oneLine(text: unknown, max = SUMMARY_MAX_CHARS): string | undefined {
  if (typeof text !== 'string') return undefined;
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (line === undefined) return undefined;
  if (line.length <= max) return line;
  let end = max - 1;
  const code = line.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // keep surrogate pairs whole
  return `${line.slice(0, end)}…`;
}
