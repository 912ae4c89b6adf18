/**
 * Binding the CLI's HTTP front door (httpServer.ts). `--host localhost` binds both loopback addresses on one port, so
 * a client reaches it whichever family its resolver gives first (`::1` or `127.0.0.1`), as Vite does; every other
 * host binds that one address, as given.
 *
 * Not part of the public API.
 *
 * @module
 */
import { createServer as createNetServer } from 'node:net';
import type { Server as NetServer } from 'node:net';
import type { Server } from 'node:http';

/** The addresses `localhost` stands for, in the order they are bound (the first one picks the port). */
export const LOCALHOST_ADDRESSES: readonly string[] = ['127.0.0.1', '::1'];

/** How often a `--port 0` bind of `localhost` picks a new port when the other family's has been taken meanwhile. */
const MAX_PORT_ATTEMPTS = 5;

/** Errors that mean "this machine has no such address" (no IPv6 loopback, IPv6 disabled): that family is skipped. */
const ABSENT = new Set(['EADDRNOTAVAIL', 'EAFNOSUPPORT']);

/** A bound front door: its URL and the listeners beside the HTTP server's own, to be closed with it. */
export interface Bound {
  /** E.g. `http://127.0.0.1:8808`, `http://[::1]:8808`, or `http://localhost:8808` when both loopbacks are bound. */
  readonly address: string;
  /** The second family's listener of a `localhost` bind (its connections are served by the HTTP server). */
  readonly extra: readonly NetServer[];
}

function bindOnce(server: Server | NetServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const a = server.address();
      resolve(a !== null && typeof a === 'object' ? a.port : port);
    });
  });
}

const closeNet = (s: NetServer) => new Promise<void>((resolve) => s.close(() => resolve()));
const codeOf = (err: unknown) => (err as NodeJS.ErrnoException).code ?? '';

/**
 * `localhost`: the HTTP server on the first loopback address that exists, then a plain TCP listener on the other
 * one with the same port, handing its connections to the HTTP server (one request path, one connection table). An
 * absent family is skipped; a taken port on the other family fails the bind (a client resolving there would reach
 * someone else), except with port 0, where a new port is picked (bounded).
 */
async function bindLocalhost(server: Server, port: number): Promise<Bound> {
  for (let attempt = 1; ; attempt++) {
    let bound: number | undefined;
    let boundOn = '';
    const extra: NetServer[] = [];
    try {
      for (const host of LOCALHOST_ADDRESSES) {
        try {
          if (bound === undefined) {
            bound = await bindOnce(server, port, host);
            boundOn = host;
          } else {
            const other = createNetServer((socket) => server.emit('connection', socket));
            await bindOnce(other, bound, host);
            extra.push(other);
          }
        } catch (err) {
          if (!ABSENT.has(codeOf(err))) throw err;
        }
      }
      // neither loopback address exists: `localhost` as the resolver gives it (its error is the one to report)
      if (bound === undefined) return { address: await bindOne(server, port, 'localhost'), extra: [] };
      const name = extra.length > 0 ? 'localhost' : boundOn === '::1' ? '[::1]' : boundOn;
      return { address: `http://${name}:${bound}`, extra };
    } catch (err) {
      await Promise.all(extra.map(closeNet));
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!(port === 0 && codeOf(err) === 'EADDRINUSE' && attempt < MAX_PORT_ATTEMPTS)) throw err;
    }
  }
}

async function bindOne(server: Server, port: number, host: string): Promise<string> {
  await bindOnce(server, port, host);
  const a = server.address();
  if (a === null || typeof a === 'string') return String(a);
  return `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
}

/**
 * Binds the front door's HTTP server on `host`:`port`; `localhost` binds both loopback addresses on one port (see the
 * module comment).
 *
 * @param server - the HTTP server, not listening yet
 * @param at - the bind address and port (0: any free port)
 * @returns the URL to print and the extra listeners (close them with the server)
 * @throws the `listen` error (`EADDRINUSE`, `EACCES`, `EADDRNOTAVAIL`, …), nothing left bound
 */
export async function bindFrontDoor(server: Server, at: { host: string; port: number }): Promise<Bound> {
  if (at.host === 'localhost') return bindLocalhost(server, at.port);
  return { address: await bindOne(server, at.port, at.host), extra: [] };
}
