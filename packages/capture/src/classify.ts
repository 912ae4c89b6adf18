import { createParser } from 'eventsource-parser';
import { isValidUpstreamName, splitName } from '@mcppipe/namespace';
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
  /**
   * True when mcppipe answered that the named tool, prompt or resource does not exist (`MCPP_AGG_UNKNOWN_NAME`:
   * JSON-RPC -32602 with `data.name` the name sent): the call reached no upstream, so `upstream` is null and the
   * Tools tab keeps no row for the name.
   */
  unknownName?: boolean;
  status: ExchangeStatus;
  /** The request body as text (what was parsed), or undefined when it was cut. */
  requestText?: string | undefined;
  /** The kept response bytes as text. */
  responseText?: string;
  /**
   * True when the response body was not parsed (with `lazyResponse`): a plain JSON answer that cannot carry an
   * error, an `isError` or a server→client request; `response` is then undefined and read by {@link responseOf}.
   */
  responseDeferred?: boolean;
}

/** @internal The kept bytes, in one buffer (no copy for one chunk). */
export const bytesOf = (body: CapturedBody): Buffer =>
  body.chunks.length === 1 ? body.chunks[0]! : Buffer.concat(body.chunks);

/** @internal The kept bytes as text. */
export const textOf = (body: CapturedBody): string => bytesOf(body).toString('utf8');

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
  const at = name.indexOf('__');
  // checked first: splitName throws (a stack trace per call) for the plain names of a single-upstream tunnel
  if (at < 1 || !isValidUpstreamName(name.slice(0, at))) return null;
  return splitName(name).upstream;
}

const MARKERS = ['"error"', '"isError"', '"method"', '\\u'];

/**
 * @internal Whether a response body can be classified without parsing it: one JSON value (by its type, or by its
 * first character when the type is unknown) that contains none of `"error"`, `"isError"`, `"method"` (so no
 * JSON-RPC error, no `isError` result, no server→client request) and no `\\u` escape (that could spell one of them).
 */
export function plainJsonAnswer(text: string, contentType: string | undefined): boolean {
  if (contentType === undefined ? !/^\s*[[{]/.test(text) : !contentType.includes('json')) return false;
  for (const m of MARKERS) if (text.includes(m)) return false;
  return true;
}

/**
 * The JSON-RPC response to request `id` in a response body (what the Inspector shows).
 *
 * @param text - the response body
 * @param contentType - its `content-type`
 * @param id - the request's id (undefined: the first response)
 * @returns the message, or undefined
 */
export function responseOf(text: string, contentType: string | undefined, id: unknown): Message | undefined {
  return findResponse(responseMessages(text, contentType), id);
}

const requestBatch = (text: string | undefined): Message[] => {
  const sent = text === undefined ? undefined : parseJson(text);
  return (Array.isArray(sent) ? sent : [sent]).filter(isObject);
};

/**
 * The request message of a request body, as {@link parseExchange} reports it (the first with a `method`, else the
 * first of the batch).
 *
 * @param text - the request body
 * @returns the message, or undefined when the body is not a JSON object or batch
 */
export function requestOf(text: string): Message | undefined {
  const batch = requestBatch(text);
  return batch.find((m) => typeof m['method'] === 'string') ?? batch[0];
}

const findResponse = (messages: Message[], id: unknown): Message | undefined =>
  messages.find(
    (m) =>
      m['method'] === undefined && (id === undefined || m['id'] === id) && ('result' in m || 'error' in m),
  );

/** Whether `response` is mcppipe's "unknown name" answer for `name` (-32602 with `data.name`, aggregator errors.ts). */
const namedUnknown = (response: Message | undefined, name: string): boolean => {
  const error = response?.['error'];
  if (!isObject(error) || error['code'] !== -32602) return false;
  const data = error['data'];
  return isObject(data) && data['name'] === name && typeof data['kind'] === 'string';
};

/**
 * Parses one exchange's kept bytes: the request's method and exposed name, the matching response, server→client
 * requests on an SSE response and client answers in the request, and the status.
 *
 * The request body is parsed once; the response body at most once, and not at all with `lazyResponse` when it is
 * a plain JSON answer (see `responseDeferred`): its status then follows from the HTTP status alone.
 *
 * @param raw - the kept bodies, the HTTP status and the response content type
 * @param options - `lazyResponse`: leave a plain JSON answer unparsed
 * @returns what they say
 */
export function parseExchange(
  raw: {
    request: CapturedBody;
    response: CapturedBody;
    httpStatus: number;
    contentType: string | undefined;
  },
  options: { lazyResponse?: boolean } = {},
): ParsedExchange {
  const requestText = raw.request.truncated ? undefined : textOf(raw.request);
  const batch = requestBatch(requestText);
  const request = batch.find((m) => typeof m['method'] === 'string');
  const answers = batch.filter((m) => m['method'] === undefined && m['id'] !== undefined);
  const params = request?.['params'];
  const named = isObject(params) && typeof params['name'] === 'string' ? params['name'] : null;
  const method = typeof request?.['method'] === 'string' ? request['method'] : null;
  const upstream = upstreamOf(named);
  const text = textOf(raw.response);
  if (options.lazyResponse === true && plainJsonAnswer(text, raw.contentType))
    return {
      request: request ?? batch[0],
      answers,
      method,
      name: named,
      upstream,
      requestText,
      responseText: text,
      response: undefined,
      responseDeferred: true,
      serverRequests: [],
      status: classifyStatus(raw.httpStatus, undefined),
    };
  const messages = responseMessages(text, raw.contentType);
  const id = request?.['id'];
  const response = findResponse(messages, id);
  const serverRequests = messages.filter((m) => typeof m['method'] === 'string' && m['id'] !== undefined);
  const status = classifyStatus(raw.httpStatus, response);
  const unknownName = named !== null && namedUnknown(response, named);
  return {
    request: request ?? batch[0],
    answers,
    method,
    name: named,
    upstream: unknownName ? null : upstream,
    unknownName,
    requestText,
    responseText: text,
    response,
    serverRequests,
    status,
  };
}
