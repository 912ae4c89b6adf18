/**
 * The `GET /tunnel/connect` upgrade (DESIGN.md T2): the HTTP server's `upgrade` listener of the relay. Any other
 * path is dropped; the CLI's policy metadata (`X-Mcppipe-Metadata`) is checked before the registry's handshake, so a
 * bad policy is refused with 400 `MCPP_TUNNEL_REFUSED` instead of opening a tunnel.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { METADATA_HEADER, refuseUpgrade } from '@mcppipe/tunnel';
import type { TunnelRegistry } from '@mcppipe/tunnel';
import { parsePolicy } from './policy.js';

/** The connect path (T2). */
export const CONNECT_PATH = '/tunnel/connect';

/**
 * Builds the relay's `upgrade` listener.
 *
 * @param registry - the registry that runs the handshake (it refuses malformed metadata itself)
 * @returns the listener: drops a socket upgraded on another path than {@link CONNECT_PATH}, answers 400
 *   `MCPP_TUNNEL_REFUSED` for a policy `parsePolicy` rejects, and hands every other upgrade to the registry
 */
export function connectUpgrade(
  registry: Pick<TunnelRegistry, 'handleUpgrade'>,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://relay').pathname !== CONNECT_PATH) {
      socket.destroy();
      return;
    }
    let metadata: Record<string, string> = {};
    try {
      const raw = req.headers[METADATA_HEADER];
      if (typeof raw === 'string') metadata = JSON.parse(raw) as Record<string, string>;
    } catch {
      // the registry refuses malformed metadata itself
    }
    const policy = typeof metadata === 'object' && metadata !== null ? parsePolicy(metadata) : undefined;
    if (typeof policy === 'string') {
      refuseUpgrade(socket, 400, { code: 'MCPP_TUNNEL_REFUSED', message: `tunnel policy: ${policy}` });
      return;
    }
    void registry.handleUpgrade(req, socket, head);
  };
}
