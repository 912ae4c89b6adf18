import type { ServerResponse } from 'node:http';
import { DEFAULT_OFFLINE_RETRY_AFTER_S } from './defaults.js';

/**
 * Answers a public request whose tunnel is offline (T6): `503`, `Retry-After`, and a JSON-RPC error `-32000`
 * whose `data.reason` is `tunnel_offline`. The one home of this answer: the relay writes it whenever
 * `TunnelRegistry.forward` throws `MCPP_TUNNEL_OFFLINE`.
 *
 * @param res - the public response (headers not sent yet)
 * @param retryAfterS - seconds for `Retry-After`. Default 5.
 * @returns nothing; the response is ended
 * @example Answering an offline tunnel
 * ```ts
 * try { await registry.forward(registry.lookup(sub, account), req, res); }
 * catch (err) { if (isMcpPipeError(err, 'MCPP_TUNNEL_OFFLINE')) writeTunnelOffline(res); else throw err; }
 * ```
 */
export function writeTunnelOffline(res: ServerResponse, retryAfterS = DEFAULT_OFFLINE_RETRY_AFTER_S): void {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32000,
      message: 'tunnel_offline: the tunnel for this address is not connected; retry shortly',
      data: { reason: 'tunnel_offline', retryAfterMs: retryAfterS * 1000 },
    },
  });
  res.writeHead(503, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'retry-after': String(retryAfterS),
    'cache-control': 'no-store',
  });
  res.end(body);
}
