/**
 * The upstream-name rules come from `@mcppipe/namespace`, their only owner (STYLE.md §6): config
 * never re-implements them, so a name means the same in every file format and in the CLI.
 */
export {
  isValidUpstreamName,
  sanitizeUpstreamName,
  sanitizeUpstreamNames,
  validateUpstreamName,
} from '@mcppipe/namespace';
