/**
 * Listening with an error a user can act on.
 *
 * @module
 */
import { McpPipeError } from '@mcppipe/errors';
import type { FastifyInstance } from 'fastify';

/** Which listener failed to bind, named by the flag and variable that choose its port. */
export interface ListenFlag {
  /** The flag, e.g. `--port`. */
  flag: string;
  /** Its environment variable, e.g. `PORT`. */
  env: string;
}

/** The public listener's port: `--port` (or `PORT`). */
export const PUBLIC_PORT: ListenFlag = { flag: '--port', env: 'PORT' };

/** The node-to-node listener's port (S2): `--node-port` (or `MCPPIPE_NODE_PORT`). */
export const NODE_PORT: ListenFlag = { flag: '--node-port', env: 'MCPPIPE_NODE_PORT' };

/**
 * Runs `listen` and turns a bind failure into an error naming the address and the flag to change.
 *
 * @param listen - binds `at` and resolves with the bound address, e.g. `http://127.0.0.1:3000`
 * @param at - the bind address and port
 * @param port - the flag and variable that chose the port (default {@link PUBLIC_PORT})
 * @returns what `listen` resolved with
 * @throws McpPipeError `MCPP_CLI_LISTEN_FAILED` naming the address and what to change (e.g. `--port` or `PORT`);
 *   `data` holds `host`, `port` and the system error `code`
 * @example Binding the node link
 * ```ts
 * await listenOrExplain((where) => cluster.listen(where), { host, port: 3100 }, NODE_PORT);
 * // a taken port: "cannot listen on 127.0.0.1:3100: the address is already in use; choose another with --node-port (or MCPPIPE_NODE_PORT)"
 * ```
 */
export async function listenOrExplain(
  listen: (at: { host: string; port: number }) => Promise<string>,
  at: { host: string; port: number },
  port: ListenFlag = PUBLIC_PORT,
): Promise<string> {
  return listen(at).catch((err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'the address is already in use' : (err as Error).message;
    throw new McpPipeError(
      'MCPP_CLI_LISTEN_FAILED',
      `cannot listen on ${at.host}:${at.port}: ${why}; choose another with ${port.flag} (or ${port.env})`,
      { cause: err, data: { host: at.host, port: at.port, code } },
    );
  });
}

/**
 * Listens the gateway's public app on `host:port`.
 *
 * @param app - the built gateway app
 * @param at - the bind address and port
 * @returns the bound address, e.g. `http://127.0.0.1:3000`
 * @throws McpPipeError `MCPP_CLI_LISTEN_FAILED` naming the address and what to change (`--port` or `PORT`)
 */
export async function listenAppOrExplain(
  app: FastifyInstance,
  at: { host: string; port: number },
): Promise<string> {
  return listenOrExplain((where) => app.listen(where), at, PUBLIC_PORT);
}

/**
 * Starts the relay's node-to-node listener (S2: peers only) when there is one (`--redis` with `--tunnel-zone`).
 *
 * @param cluster - the relay's cluster, or `undefined` on one node (then nothing is bound)
 * @param at - the bind address and `--node-port`
 * @returns the bound address, or `undefined` without a cluster
 * @throws McpPipeError `MCPP_CLI_LISTEN_FAILED` naming the address and what to change (`--node-port` or
 *   `MCPPIPE_NODE_PORT`), e.g. a second node on one machine left on the default 3100
 */
export async function listenNodeLink(
  cluster: { listen(at: { host: string; port: number }): Promise<string> } | undefined,
  at: { host: string; port: number },
): Promise<string | undefined> {
  return cluster && listenOrExplain((where) => cluster.listen(where), at, NODE_PORT);
}
