/**
 * What the early start (early.ts) loads, in one dynamic import: only what it calls, so that the bundle's early
 * chunks hold just that code, not every export of `@mcppipe/config` (cold start, issue 21).
 *
 * Not part of the public API.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { loadUpstreamsFile, parseUpstreamsToml } from '@mcppipe/config';
import type { CliSources, Layout } from '@mcppipe/config';

export { resolveCliSources } from '@mcppipe/config';
export { createStdioTransport, reapOrphans } from '@mcppipe/supervisor/stdio';

/**
 * The layout of the sources, a file read without an event-loop turn (one with a byte-order mark as usual).
 *
 * @param sources - `resolveCliSources`' answer, with sources
 * @returns the layout
 * @throws what `parseUpstreamsToml` or `loadUpstreamsFile` throws (the early start then declines)
 */
export async function readLayout(sources: Exclude<CliSources, { source: 'none' }>): Promise<Layout> {
  if (sources.source === 'flags') return sources.layout;
  const text = readFileSync(sources.path, 'utf8');
  if (text.charCodeAt(0) === 0xfeff) return loadUpstreamsFile(sources.path);
  return parseUpstreamsToml(text, sources.path);
}

/**
 * A supervisor id for the children's markers, unique on this machine (this process's pid and start, and a random
 * part), without loading webcrypto on the way to the first spawn (its `randomUUID` costs ~2.5 ms of CPU there).
 *
 * @returns e.g. `4242-mi5x3k2a-k3j9s8d1`
 */
export function earlySupervisorId(): string {
  const random = Math.random().toString(36).slice(2, 10);
  return `${process.pid}-${Math.round(performance.timeOrigin).toString(36)}-${random}`;
}
