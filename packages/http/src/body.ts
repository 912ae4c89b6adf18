import type { IncomingMessage, ServerResponse } from 'node:http';

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
 * Reads and parses a JSON body with a byte bound (for hosts without a body parser).
 *
 * @param req - the Node request
 * @param maxBytes - the bound in bytes
 * @throws BodyError 413 past the bound, 400 on invalid JSON
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new BodyError(413, -32600, `request body exceeds ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new BodyError(413, -32600, `request body exceeds ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
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
