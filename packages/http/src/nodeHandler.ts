import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { loadSdkNode } from './sdkNode.js';

/** The web-standard face of `createMcpHandler`. */
interface FetchHandler {
  fetch(request: Request, options?: { authInfo?: AuthInfo; parsedBody?: unknown }): Promise<Response>;
}

const singleHeaderValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function echoableRequestId(body: unknown): string | number | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string') return null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * The web `Request` `toWebRequest(req, parsedBody, { signal })` builds, but lazy: `method`, `url`, `headers` and
 * `signal` (all the SDK's entry reads) are served directly; anything else (`body`, `json()`, `clone()`…) builds
 * the real `Request`, with the same URL, headers and re-serialized body as `toWebRequest`. The URL, the headers
 * and the serialized body are built on first use; `signal` may be given as a function, called on first use.
 *
 * @param req - the Node request
 * @param parsedBody - its parsed body
 * @param signal - the request's abort signal, or a function returning it
 */
export function parsedRequest(
  req: IncomingMessage,
  parsedBody: unknown,
  signal: AbortSignal | (() => AbortSignal),
): Request {
  const method = (req.method ?? 'GET').toUpperCase();
  const hasBody = method !== 'GET' && method !== 'HEAD';
  let url: string | undefined;
  const urlOf = () =>
    (url ??= `http://${singleHeaderValue(req.headers['host']) ?? singleHeaderValue(req.headers[':authority']) ?? 'localhost'}${req.url ?? '/'}`);
  let signalValue: AbortSignal | undefined = typeof signal === 'function' ? undefined : signal;
  const signalOf = () => (signalValue ??= (signal as () => AbortSignal)());
  let serialized: string | undefined;
  let serializedDone = false;
  const serializedOf = (): string | undefined => {
    if (!serializedDone) {
      serialized = hasBody ? JSON.stringify(parsedBody) : undefined;
      serializedDone = true;
    }
    return serialized;
  };
  let headers: Headers | undefined;
  let real: Request | undefined;
  const headersOf = (): Headers => {
    if (headers) return headers;
    headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name.startsWith(':')) continue;
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else headers.set(name, value);
    }
    if (hasBody) {
      headers.delete('content-encoding');
      headers.delete('transfer-encoding');
      const text = serializedOf();
      if (text === undefined) headers.delete('content-length');
      else headers.set('content-length', String(Buffer.byteLength(text)));
    }
    return headers;
  };
  const materialize = (): Request => {
    if (real) return real;
    const text = serializedOf();
    real = new Request(urlOf(), {
      method,
      headers: headersOf(),
      signal: signalOf(),
      ...(text !== undefined && { body: text }),
    });
    return real;
  };
  return new Proxy(Object.create(Request.prototype) as Request, {
    get(_target, prop) {
      if (real === undefined) {
        if (prop === 'method') return method;
        if (prop === 'url') return urlOf();
        if (prop === 'headers') return headersOf();
        if (prop === 'signal') return signalOf();
      }
      const r = materialize();
      const value: unknown = Reflect.get(r, prop, r);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(r) : value;
    },
    has(_target, prop) {
      return prop in materialize();
    },
    getPrototypeOf() {
      return Request.prototype;
    },
  });
}

/**
 * `toNodeHandler(handler, options)` of `@modelcontextprotocol/node` with a cheaper conversion when the body is
 * already parsed (every POST the host serves): the web `Request` is built only if something reads more than its
 * method, URL, headers or signal, and a response that is not an SSE stream is written with one `end()` (headers
 * and body in one write) instead of being streamed chunk by chunk. SSE responses, error handling (`onerror`, the
 * 500 body with the request's id), client aborts and backpressure are those of `toNodeHandler`; requests without
 * a parsed body go to `toNodeHandler` itself.
 */
export function createNodeHandler(
  handler: FetchHandler,
  options: { maxRequestBodySize: number; onerror?: (error: Error) => void },
): (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown) => Promise<void> {
  let fallback: ReturnType<Awaited<ReturnType<typeof loadSdkNode>>['toNodeHandler']> | undefined;
  return async (req, res, parsedBody) => {
    if (parsedBody === undefined) {
      fallback ??= (await loadSdkNode()).toNodeHandler(handler, options);
      return fallback(req, res, parsedBody);
    }
    let finished = false;
    const abort = new AbortController();
    res.on('close', () => {
      if (!finished) abort.abort();
    });
    if (res.destroyed) abort.abort();
    let response: Response;
    try {
      const request = parsedRequest(req, parsedBody, abort.signal);
      response = await handler.fetch(request, {
        ...(req.auth !== undefined && { authInfo: req.auth }),
        parsedBody,
      });
    } catch (error) {
      try {
        options.onerror?.(error instanceof Error ? error : new Error(String(error)));
      } catch {
        // reporting only
      }
      response = Response.json(
        {
          jsonrpc: '2.0',
          error: { code: -32603, message: 'Internal server error' },
          id: echoableRequestId(parsedBody),
        },
        { status: 500 },
      );
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) headers[name] = value;
    if (response.body === null) {
      finished = true;
      res.writeHead(response.status, headers);
      res.end();
      return;
    }
    if (!(headers['content-type'] ?? '').includes('text/event-stream')) {
      let body: Buffer | undefined;
      try {
        body = Buffer.from(await response.arrayBuffer());
      } catch {
        body = undefined; // like a failed stream read: the status and headers, then the end
      }
      finished = true;
      if (body !== undefined && headers['content-length'] === undefined)
        headers['content-length'] = String(body.length);
      res.writeHead(response.status, headers);
      res.end(body);
      return;
    }
    res.writeHead(response.status, headers);
    let drainResolve: (() => void) | undefined;
    res.on('drain', () => {
      drainResolve?.();
      drainResolve = undefined;
    });
    const closed = new Promise<void>((resolve) =>
      abort.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (abort.signal.aborted) break;
        if (!res.write(chunk)) {
          await Promise.race([new Promise<void>((resolve) => (drainResolve = resolve)), closed]);
        }
      }
    } catch {
      // the stream failed or the client left: end what was sent
    }
    finished = true;
    res.end();
  };
}
