import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_JSON_DEPTH, depthMessage, exceedsDepth } from './limits.js';

/**
 * Writes a JSON-RPC error response with `id: null` (used before any server sees the request).
 *
 * @param res - the Node response
 * @param status - the HTTP status
 * @param error - JSON-RPC `code`, `message` and optional `data`
 */
export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  error: { code: number; message: string; data?: unknown },
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', error, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Thrown by {@link readJsonBody}; `status` is the HTTP status to answer with. */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads and parses a JSON body with a byte bound and the nesting-depth pre-scan (for hosts without a body parser).
 *
 * @param req - the Node request
 * @param maxBytes - the bound in bytes
 * @param maxDepth - the deepest JSON nesting accepted (default `MAX_JSON_DEPTH`, C4)
 * @throws BodyError 413 past the bound, 400 on a body nesting deeper than `maxDepth` or invalid JSON
 */
export async function readJsonBody(
  req: IncomingMessage,
  maxBytes: number,
  maxDepth: number = MAX_JSON_DEPTH,
): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new BodyError(413, -32600, `request body exceeds ${maxBytes} bytes`);
  }
  // listeners rather than `for await`, whose early exit would destroy the socket under the 413
  const chunks = await new Promise<Buffer[]>((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        req.pause();
        reject(new BodyError(413, -32600, `request body exceeds ${maxBytes} bytes`));
      } else parts.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(parts);
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
  const bytes = Buffer.concat(chunks);
  if (exceedsDepth(bytes, maxDepth)) throw new BodyError(400, -32700, depthMessage(maxDepth));
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new BodyError(400, -32700, 'Parse error: invalid JSON');
  }
}

/**
 * Whether a parsed body is (or, for a batch, contains) an `initialize` request.
 *
 * @param body - the parsed JSON body
 */
export function isInitializeBody(body: unknown): boolean {
  const isInit = (m: unknown) =>
    typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize';
  return Array.isArray(body) ? body.some(isInit) : isInit(body);
}
