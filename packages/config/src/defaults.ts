/**
 * Defaults of `@mcppipe/config` (STYLE.md §4). Units are in the names.
 *
 * @module
 */

/** `watchConfig`: how often `fs.watchFile` polls the file, in ms (DESIGN.md G10). */
export const DEFAULT_POLL_INTERVAL_MS = 3000;

/** `watchConfig`: quiet time after the last file event before the file is re-read, in ms (G10). */
export const DEFAULT_DEBOUNCE_MS = 300;

/** JSON and JSONC documents nest at most this deep (a guard against stack exhaustion). */
export const MAX_JSON_DEPTH = 100;

/** A unknown key is "close" to a known one (for "did you mean") within this edit distance. */
export const DID_YOU_MEAN_DISTANCE = 2;
