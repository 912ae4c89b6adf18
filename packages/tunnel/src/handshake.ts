import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_METADATA_BYTES } from './defaults.js';

/**
 * Refuses a WebSocket upgrade with a plain HTTP answer and a JSON body `{ error: { code, message } }`.
 *
 * @param socket - the upgrade's socket (destroyed after the answer)
 * @param status - HTTP status: 400, 401, 409 (permanent for the client) or 503 (transient)
 * @param error - the body's `code` and `message`
 * @returns undefined, for `return refuseUpgrade(…)`
 */
export function refuseUpgrade(
  socket: Duplex,
  status: number,
  error: { code: string; message: string },
): undefined {
  const body = JSON.stringify({ error });
  if (!socket.destroyed && socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  setTimeout(() => socket.destroy(), 1_000).unref();
  return undefined;
}

/**
 * Parses the metadata header of a connect request.
 *
 * @param value - the header value
 * @returns the metadata (empty when absent), or undefined when malformed or too large
 */
export function readMetadata(value: string | string[] | undefined): Record<string, string> | undefined {
  if (value === undefined) return {};
  if (typeof value !== 'string' || Buffer.byteLength(value) > MAX_METADATA_BYTES) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) {
      if (typeof v !== 'string') return undefined;
      out[k] = v;
    }
    return out;
  } catch {
    return undefined;
  }
}
