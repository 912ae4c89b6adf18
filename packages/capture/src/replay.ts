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
