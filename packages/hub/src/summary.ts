import { SUMMARY_MAX_CHARS } from './defaults.js';

/** A sentence end: `.`, `!` or `?` followed by whitespace and a capital (or quote, paren, backtick), or the end. */
const SENTENCE_END = /[.!?](?=\s+[A-Z("'`]|\s*$)/g;
/** A Markdown ATX heading marker. */
const HEADING = /^#{1,6}\s+/;
/** Sentences shorter than this are kept going ("E.g. …", "v1. …"). */
const MIN_SENTENCE_CHARS = 20;

/**
 * A one-line summary of `text`: the first sentence of its first non-empty line that is not a Markdown heading, trimmed and cut at `max`
 * characters (with `…`), or undefined when there is no text. Used for the descriptions in `list_servers` and
 * `list_tools` (a leading Markdown title is skipped), so that a listing costs a few tokens per tool however long the upstream's descriptions are.
 *
 * @param text - a description or instructions, possibly multi-line
 * @param max - the maximum length, default 200
 * @returns the summary, or undefined for a missing or blank text
 */
export function oneLine(text: unknown, max = SUMMARY_MAX_CHARS): string | undefined {
  if (typeof text !== 'string') return undefined;
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  // Markdown instructions often open with a title ("# Everything Server – Instructions"): prefer prose
  const line = lines.find((l) => !HEADING.test(l)) ?? lines[0]?.replace(HEADING, '');
  if (line === undefined) return undefined;
  let sentence = line;
  for (const match of line.matchAll(SENTENCE_END)) {
    if (match.index + 1 >= MIN_SENTENCE_CHARS) {
      sentence = line.slice(0, match.index + 1);
      break;
    }
  }
  if (sentence.length <= max) return sentence;
  let end = max - 1;
  const code = sentence.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // keep surrogate pairs whole
  return `${sentence.slice(0, end)}…`;
}
