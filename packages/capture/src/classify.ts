import { createParser } from 'eventsource-parser';
import { splitName } from '@mcppipe/namespace';
import type { CapturedBody, ExchangeStatus } from './types.js';

type Message = Record<string, unknown>;
const isObject = (v: unknown): v is Message => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What one exchange's bodies say, parsed off the forwarding path. */
export interface ParsedExchange {
  /** The parsed request (the first of a batch), or undefined when it was cut or is not JSON. */
  request: Message | undefined;
  /** The JSON-RPC response to the request, or undefined. */
  response: Message | undefined;
  /** Server→client requests (have `method` and `id`) seen on the response stream (SSE). */
  serverRequests: Message[];
  /** Client→server answers in the request body (a 2025 client answering a sampling or elicitation request). */
  answers: Message[];
  method: string | null;
  name: string | null;
  upstream: string | null;
  status: ExchangeStatus;
}

/** @internal The kept bytes as text. */
export const textOf = (body: CapturedBody): string => Buffer.concat(body.chunks).toString('utf8');

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * The JSON-RPC messages of a response body: one JSON value (or batch), or the `data:` of each SSE event (parsed
 * with `eventsource-parser`).
 *
 * @param text - the body
 * @param contentType - its `content-type`; unknown: SSE unless the body starts as JSON
 * @returns the messages that parsed
 */
export function responseMessages(text: string, contentType: string | undefined): Message[] {
  const out: Message[] = [];
  const add = (v: unknown) => {
    for (const m of Array.isArray(v) ? v : [v]) if (isObject(m)) out.push(m);
  };
  // the relay writes headers with writeHead, so the type may be unknown here: a body not starting as JSON is SSE
  const sse = contentType === undefined ? !/^\s*[[{]/.test(text) : contentType.includes('text/event-stream');
  if (sse) {
    const parser = createParser({ onEvent: (e) => add(parseJson(e.data)) });
    parser.feed(text);
  } else add(parseJson(text));
  return out;
}

/**
 * Classifies an exchange (issue 19): a JSON-RPC error → its code; a non-2xx answer without one → `http_<code>`; a
 * result with `isError: true` (HTTP 200, JSON or SSE) → `'isError'`; else `'ok'`.
 *
 * @param httpStatus - the HTTP status
 * @param response - the JSON-RPC response, if one was found
 * @returns the status
 */
export function classifyStatus(httpStatus: number, response: Message | undefined): ExchangeStatus {
  const error = response?.['error'];
  if (isObject(error) && typeof error['code'] === 'number') return error['code'];
  if (httpStatus < 200 || httpStatus > 299) return `http_${httpStatus}`;
  const result = response?.['result'];
  if (isObject(result) && result['isError'] === true) return 'isError';
  return 'ok';
}

/** The upstream of an exposed name, or null when it is not namespaced (a single-upstream tunnel). */
export function upstreamOf(name: string | null): string | null {
  if (name === null) return null;
  try {
    return splitName(name).upstream;
  } catch {
    return null;
  }
}

/**
 * Parses one exchange's kept bytes: the request's method and exposed name, the matching response, server→client
 * requests on an SSE response and client answers in the request, and the status.
 *
 * @param raw - the kept bodies, the HTTP status and the response content type
 * @returns what they say
 */
export function parseExchange(raw: {
  request: CapturedBody;
  response: CapturedBody;
  httpStatus: number;
  contentType: string | undefined;
}): ParsedExchange {
  const sent = raw.request.truncated ? undefined : parseJson(textOf(raw.request));
  const batch = (Array.isArray(sent) ? sent : [sent]).filter(isObject);
  const request = batch.find((m) => typeof m['method'] === 'string');
  const answers = batch.filter((m) => m['method'] === undefined && m['id'] !== undefined);
  const messages = responseMessages(textOf(raw.response), raw.contentType);
  const id = request?.['id'];
  const response = messages.find(
    (m) =>
      m['method'] === undefined && (id === undefined || m['id'] === id) && ('result' in m || 'error' in m),
  );
  const serverRequests = messages.filter((m) => typeof m['method'] === 'string' && m['id'] !== undefined);
  const params = request?.['params'];
  const named = isObject(params) && typeof params['name'] === 'string' ? params['name'] : null;
  const method = typeof request?.['method'] === 'string' ? request['method'] : null;
  return {
    request: request ?? batch[0],
    response,
    serverRequests,
    answers,
    method,
    name: named,
    upstream: upstreamOf(named),
    status: classifyStatus(raw.httpStatus, response),
  };
}
