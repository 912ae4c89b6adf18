/**
 * Listening with an error a user can act on.
 *
 * @module
 */
import { McpPipeError } from '@mcppipe/errors';
import type { FastifyInstance } from 'fastify';

/**
 * Listens on `host:port`.
 *
 * @param app - the built gateway app
 * @param at - the bind address and port
 * @returns the bound address, e.g. `http://127.0.0.1:3000`
 * @throws McpPipeError `MCPP_CLI_LISTEN_FAILED` naming the address and what to change (`--port` or `PORT`)
 */
export async function listenOrExplain(
  app: FastifyInstance,
  at: { host: string; port: number },
): Promise<string> {
  return app.listen(at).catch((err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'the address is already in use' : (err as Error).message;
    throw new McpPipeError(
      'MCPP_CLI_LISTEN_FAILED',
      `cannot listen on ${at.host}:${at.port}: ${why}; choose another with --port (or PORT)`,
      { cause: err, data: { host: at.host, port: at.port, code } },
    );
  });
}
