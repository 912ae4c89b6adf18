import type { Logger } from './types.js';

/** Longest exposed tool or prompt name: model APIs reject tool names over 64 characters. */
export const DEFAULT_MAX_NAME_LENGTH = 64;

/** Items per page of a merged list; shorter lists are answered in one page. */
export const DEFAULT_PAGE_SIZE = 1000;

/** Most pages read from one upstream for one list before the walk stops and the upstream is flagged. */
export const DEFAULT_MAX_PAGES_PER_UPSTREAM = 100;

/** Timeout of one upstream list page, in ms. */
export const DEFAULT_LIST_TIMEOUT_MS = 30_000;

/** Timeout of a routed call in ms, reset by progress (the hub's `call_tool` uses the same, DESIGN.md G11). */
export const DEFAULT_CALL_TIMEOUT_MS = 300_000;

/** How long a 2026-07-28 `input_required` flow waits for the agent's retry, in ms (the SDK's round timeout). */
export const DEFAULT_INPUT_REQUIRED_TTL_MS = 600_000;

/** Timeout of a server→client request bridged to a 2025-era agent (human-paced), in ms. */
export const BRIDGE_REQUEST_TIMEOUT_MS = 600_000;

/** The `serverInfo` agents see unless `serverInfo` is given. */
export const DEFAULT_SERVER_INFO = { name: 'mcppipe', version: '0.1.0' } as const;

/** The logger used when none is given. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
