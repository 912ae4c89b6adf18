/**
 * The shapes `@mcppipe/config` produces. `UpstreamConfig` is the one upstream type: the supervisor's
 * `UpstreamSpec` is this type (config ← supervisor, STYLE.md §1 dependency direction), so a layout's upstreams
 * are handed to the supervisor as they are.
 *
 * @module
 */

import type { PolicyConfig } from '@mcppipe/policy';

/** Which protocol era to speak to an upstream (DESIGN.md "The SDK line and the two protocol eras"). */
export type ProtocolPreference = 'auto' | 'legacy' | 'modern';

/** Fields every upstream has. */
export interface UpstreamConfigBase {
  /** The upstream name (DESIGN.md A6, validated by `@mcppipe/namespace`). */
  name: string;
  /** Handshake timeout for one connection attempt, in ms. Absent: the supervisor's default (60 000). */
  startTimeoutMs?: number;
  /** Era override. Absent: the supervisor's default (`legacy` for stdio, `auto` for HTTP). */
  protocol?: ProtocolPreference;
  /** Whether the hub shows this upstream (gateway `"hub": false`). Absent means true. */
  hub?: boolean;
}

/** A stdio upstream: a command spawned without a shell. */
export interface StdioUpstreamConfig extends UpstreamConfigBase {
  /** Discriminant: a child process speaking MCP over stdin/stdout. */
  transport: 'stdio';
  /**
   * The command. When `args` is absent it is a whole command line that the supervisor splits with a
   * shell-words parser (`npx -y pkg "a b"`); when `args` is present it is the executable, verbatim.
   */
  command: string;
  /** Arguments, used verbatim when present. */
  args?: string[];
  /** Extra environment variables, merged over the inherited environment. Values are kept raw (`${VAR}` unexpanded). */
  env?: Record<string, string>;
  /** Working directory, kept raw (`${VAR}` unexpanded). Relative paths are relative to the process's working directory. */
  cwd?: string;
}

/** An HTTP upstream: Streamable HTTP, with legacy SSE fallback. */
export interface HttpUpstreamConfig extends UpstreamConfigBase {
  /** Discriminant: an MCP endpoint over HTTP. */
  transport: 'http';
  /** The endpoint URL (`http:` or `https:`), kept raw (`${VAR}` unexpanded). */
  url: string;
  /** Headers sent on every request. Values are kept raw (`${VAR}` unexpanded) and are secrets. */
  headers?: Record<string, string>;
}

/** One upstream's configuration; `@mcppipe/supervisor`'s `UpstreamSpec` is this type. */
export type UpstreamConfig = StdioUpstreamConfig | HttpUpstreamConfig;

/**
 * How a layout is served: `single` forwards one upstream verbatim (the single-upstream hot path: no
 * prefixing); `aggregate` namespaces every upstream (DESIGN.md A1–A7).
 */
export type LayoutMode = 'single' | 'aggregate';

/**
 * The set of upstreams one process fronts. In `single` mode `upstreams` has exactly one entry; in
 * `aggregate` mode upstreams are sorted by name (A3, A8).
 */
export interface Layout {
  /** `single`: serve the one upstream verbatim; `aggregate`: namespace every upstream. */
  mode: LayoutMode;
  /** The upstreams; names are unique. */
  upstreams: UpstreamConfig[];
  /**
   * Tool policies and rate limits on exposed names (DESIGN.md P1–P3), validated with `@mcppipe/policy`'s
   * `validatePolicyConfig`; compile with `compilePolicy`. Absent: everything is allowed, nothing is limited.
   */
  policies?: PolicyConfig;
}

/**
 * The result of a pure validator (STYLE.md §6): the normalised config and any warnings, or every
 * problem found. Each message starts with the dot-path of the value it is about
 * (`mcpServers.github.command: must be a non-empty string`).
 */
export type ValidationResult<T> =
  { ok: true; config: T; warnings: string[] } | { ok: false; errors: string[]; warnings: string[] };

/**
 * A pino-compatible logger: `logger.warn({ path }, 'message')`. Packages default to a no-op logger.
 */
export interface Logger {
  /** Detail: a rewrite without changes. */
  debug(obj: object, msg?: string): void;
  /** A reload: `{ path, added, removed, changed }`. */
  info(obj: object, msg?: string): void;
  /** A config warning, or a file that cannot be read. */
  warn(obj: object, msg?: string): void;
  /** A rejected file or a failing change handler: `{ path, err }`. */
  error(obj: object, msg?: string): void;
}

/** Options of the throwing parsers and loaders. */
export interface ParseOptions {
  /** Receives each warning as `logger.warn({ path }, warning)`. Default: warnings are dropped. */
  logger?: Logger;
}
