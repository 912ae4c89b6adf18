/**
 * Constants of the namespacing codec. Changing any of them changes exposed names or URIs that agents
 * may have stored, so they are part of the wire contract.
 */

/** The separator between an upstream name and an original tool or prompt name (DESIGN.md A1). */
export const SEPARATOR = '__';

/** The longest upstream name (DESIGN.md A6). */
export const MAX_UPSTREAM_NAME_LENGTH = 32;

/** The shape part of the upstream-name rule, as quoted in error messages (DESIGN.md A6). */
export const UPSTREAM_NAME_PATTERN = '^[a-z][a-z0-9_-]{0,31}$';

/** The full upstream-name rule, as quoted in error messages. */
export const UPSTREAM_NAME_RULE = `must match ${UPSTREAM_NAME_PATTERN}, must not contain "__" and must not end with "_"`;

/** Prefix of a wrapped plain resource URI: `mcppipe://<upstream>/<base64url(utf8(uri))>` (DESIGN.md A2). */
export const URI_SCHEME_PREFIX = 'mcppipe://';

/** Prefix of a wrapped resource template and of its expansions: `mcppipe+t://<upstream>/<template>`. */
export const TEMPLATE_SCHEME_PREFIX = 'mcppipe+t://';

/** Prefix `sanitizeUpstreamName` puts before a key that does not start with a letter (DESIGN.md A11). */
export const SANITIZE_PREFIX = 'srv-';

/**
 * The characters model APIs accept in a tool name (DESIGN.md A15: `^[A-Za-z0-9_-]{1,64}$`). `fitName`
 * rewrites every other code point of an original name to {@link EXPOSED_NAME_REPLACEMENT}.
 */
export const EXPOSED_NAME_CHARS = /^[A-Za-z0-9_-]*$/;

/** What `fitName` writes for a code point outside {@link EXPOSED_NAME_CHARS} (DESIGN.md A15). */
export const EXPOSED_NAME_REPLACEMENT = '_';

/** Number of base36 characters of the hash `fitName` appends to a shortened name. */
export const FIT_HASH_LENGTH = 8;

/**
 * Exposed-name length limits of common agents, for `fitName`'s `maxLength`.
 *
 * @example Fitting a name for Cursor
 * ```ts
 * fitName('github', longToolName, { maxLength: exposedNameLimits.cursor });
 * ```
 */
export const exposedNameLimits = {
  /** Model APIs (Anthropic, OpenAI) reject tool names longer than 64 characters; `fitName`'s default. */
  default: 64,
  /** Cursor's limit: it ignores tools whose names are longer than 60 characters. */
  cursor: 60,
} as const;
