/**
 * `@mcppipe/capture`: the relay's record of MCP exchanges (issue 19, DESIGN.md D2, D3). Every export here is public
 * API. Framework-free: the gateway tees each forwarded exchange with {@link ExchangeCapture.tap} and serves the
 * records through its API.
 *
 * - {@link ExchangeCapture}: per tunnel, a ring bounded by count and bytes, Live subscribers, stats, stars.
 * - {@link tapExchange}: tees a Node request/response pair (bytes kept up to a cap, nothing parsed on the path);
 *   {@link teeExchange}: the same, fed by a forwarder that moves the bytes itself ({@link ExchangeCapture.tee}).
 * - {@link parseExchange}, {@link classifyStatus}: method, exposed name, upstream, `ok` / JSON-RPC code / `isError`.
 * - {@link redactValue}, {@link redactMessage}: argument values replaced by placeholders keeping keys and types;
 *   {@link restoreRedacted}: the original values back into an edited copy (replay).
 * - {@link ToolStats}: per-tool per-minute buckets with a log-scale latency histogram (p50/p95/p99 over 1 h, 24 h).
 * - {@link BoundedRing}: the count- and byte-bounded ring.
 *
 * @module
 */
export { ExchangeCapture } from './capture.js';
export type { CaptureErrorCode } from './errors.js';
export type { ExchangeCaptureOptions, ExchangeFilter, ReplaySource } from './capture.js';
export { tapExchange, teeExchange } from './tap.js';
export type { SharedExchangeRing, SharedWriterOptions } from './shared.js';
export { replayRequestHeaders, runReplay } from './replay.js';
export type { ReplayAnswer, ReplayRun } from './replay.js';
export type { ExchangeTee, TapOptions } from './tap.js';
export { classifyStatus, parseExchange, responseMessages, upstreamOf } from './classify.js';
export type { ParsedExchange } from './classify.js';
export { redactMessage, redactValue, restoreRedacted } from './redact.js';
export { ToolStats } from './stats.js';
export { BoundedRing } from './ring.js';
export type { RingEntry } from './ring.js';
export { HISTOGRAM_BINS, binOf, binValue, percentiles } from './histogram.js';
export type {
  CapturedBody,
  ExchangeChild,
  ExchangeContext,
  ExchangeDetail,
  ExchangeStatus,
  ExchangeSummary,
  RawExchange,
  ToolStatsRow,
} from './types.js';
export {
  DEFAULT_BODY_CAP_BYTES,
  DEFAULT_RING_MAX_BYTES,
  DEFAULT_RING_MAX_EXCHANGES,
  REDACTED,
} from './defaults.js';
