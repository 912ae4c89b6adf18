import type { Readable } from 'node:stream';
import { bodySink } from './tap.js';
import type { RawExchange } from './types.js';

/** What a replay's sender answers: the HTTP status and headers, and the body as a stream. */
export interface ReplayAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  stream: Readable;
}

/** The arguments of {@link runReplay}. */
export interface ReplayRun {
  /** The request body to send (the original, or the owner's edited copy). */
  body: string;
  /** Sends it (through the same tunnel as the original) and answers with the response stream. */
  send: (body: string) => Promise<ReplayAnswer>;
  /** The API caller's name, recorded as the exchange's caller. */
  caller: string | null;
  /** The replayed exchange's id. */
  replayOf: string;
  zeroKnowledge: boolean;
  captureValues?: boolean;
  /** The session headers of the original (`mcp-session-id`, `mcp-protocol-version`). */
  replayHeaders: Record<string, string>;
  /** Bytes kept of each body. */
  capBytes: number;
  /** Gives up reading the answer after this long, ms. */
  timeoutMs: number;
  now: () => number;
}

/**
 * Sends one replay and reads its answer into a raw exchange (kept up to the cap, counted beyond it), ready for
 * `ExchangeCapture.record`. The answer is read for at most `timeoutMs`.
 *
 * @param run - the body, the sender and the record's context
 * @returns the raw exchange
 * @throws whatever `send` rejects with (e.g. `MCPP_TUNNEL_OFFLINE`)
 */
export async function runReplay(run: ReplayRun): Promise<RawExchange> {
  const startedAt = run.now();
  const keep = !run.zeroKnowledge;
  const request = bodySink(run.capBytes, keep);
  request.push(Buffer.from(run.body));
  const answer = await run.send(run.body);
  const response = bodySink(run.capBytes, keep);
  const timer = setTimeout(() => answer.stream.destroy(), run.timeoutMs);
  try {
    for await (const chunk of answer.stream)
      response.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  } catch {
    // a stream cut by the timeout or the tunnel: what arrived is recorded
  } finally {
    clearTimeout(timer);
  }
  const contentType = answer.headers['content-type'];
  return {
    caller: run.caller,
    zeroKnowledge: run.zeroKnowledge,
    ...(run.captureValues !== undefined && { captureValues: run.captureValues }),
    replayOf: run.replayOf,
    startedAt,
    durationMs: run.now() - startedAt,
    httpStatus: answer.status,
    contentType: typeof contentType === 'string' ? contentType : undefined,
    sessionId: run.replayHeaders['mcp-session-id'],
    replayHeaders: run.replayHeaders,
    request,
    response,
  };
}

/** The body field the 2026-era `Mcp-Name` header mirrors, per method (SEP-2243, SEP-2663). */
const MCP_NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A header value as the 2026-era headers carry it: plain when printable ASCII, else the base64 sentinel. */
const headerValue = (v: string): string =>
  /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(v) ? v : `=?base64?${Buffer.from(v).toString('base64')}?=`;

/**
 * The request headers of a replay: the original's session headers, and for a 2026-era original (it carried
 * `Mcp-Method`) the standard headers derived from the body actually sent (an edited copy may name another tool),
 * so the server's header/body cross-check holds.
 *
 * @param original - the recorded replay headers (`mcp-session-id`, `mcp-protocol-version`, `mcp-method`)
 * @param body - the JSON-RPC request to send
 * @returns the headers to send
 */
export function replayRequestHeaders(
  original: Readonly<Record<string, string>>,
  body: string,
): Record<string, string> {
  const headers: Record<string, string> = { ...original };
  if (original['mcp-method'] === undefined) return headers;
  let message: { method?: unknown; params?: Record<string, unknown> } | undefined;
  try {
    message = JSON.parse(body) as typeof message;
  } catch {
    return headers; // the server answers the malformed body itself
  }
  if (typeof message?.method !== 'string') return headers;
  headers['mcp-method'] = message.method;
  const field = Object.hasOwn(MCP_NAME_SOURCE, message.method) ? MCP_NAME_SOURCE[message.method] : undefined;
  const value = field === undefined ? undefined : message.params?.[field];
  if (typeof value === 'string') headers['mcp-name'] = headerValue(value);
  return headers;
}
