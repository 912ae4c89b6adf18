import type { McpHttpHost } from '@mcppipe/http';
import type { Supervisor } from '@mcppipe/supervisor';
import type { Logger } from 'pino';
import type { UpArgs } from '../commands/up.js';
import { buildHttpServer } from '../httpServer.js';
import type { McpHttpServer } from '../httpServer.js';
import type { Metrics } from '../metrics.js';
import type { MetricsServer } from './listenMetrics.js';
import { envVariable } from './flagReaders.js';
import { listenMetrics } from './listenMetrics.js';
import { trace, tracing } from './trace.js';
import { listenFailed } from './util.js';

/** What {@link listenServing} serves. */
export interface ListenOptions {
  args: UpArgs;
  endpoints: Record<string, McpHttpHost>;
  /** Stopped when the MCP port cannot be bound: the upstreams were already starting. */
  supervisor: Supervisor;
  metrics: Metrics | undefined;
  /** `--metrics-addr` parsed (checked before anything started). */
  metricsAt: [host: string, port: number] | undefined;
  logger: Logger;
}

/** The listening servers of `mcppipe up`. */
export interface Listening {
  app: McpHttpServer;
  /** The bound address, e.g. `http://127.0.0.1:8808`. */
  address: string;
  metricsServer: MetricsServer | undefined;
}

/**
 * Serves the endpoints over HTTP on `--host`/`--port`, and the metrics on `--metrics-addr` (warning when that is
 * beyond loopback).
 *
 * @param options - the flags, endpoints, supervisor, metrics (and where they are served) and logger
 * @returns the app, its address and the metrics server
 * @throws McpPipeError `MCPP_CLI_LISTEN_FAILED` naming the flag to change (the upstreams are stopped first)
 */
export async function listenServing(options: ListenOptions): Promise<Listening> {
  const { args, metricsAt, logger } = options;
  const app = await buildHttpServer({
    host: args.host,
    bodyLimit: args.bodyLimit,
    allowedOrigins: args.allowedOrigins,
    allowedHosts: args.allowedHosts,
    endpoints: options.endpoints,
  });
  const address = await app.listen({ host: args.host, port: args.port }).catch(async (err: unknown) => {
    await options.supervisor.stop(); // the upstreams were already starting: leave no child behind
    const hint = { host: `--host (or ${envVariable('host')})`, port: `--port (or ${envVariable('port')})` };
    throw listenFailed(err, { host: args.host, port: args.port, hint });
  });
  trace('listening');
  if (tracing) app.server.once('request', () => trace('first request'));
  logger.info({ address }, 'listening');
  const metricsServer = await listenMetrics(options.metrics, metricsAt, logger);
  return { app, address, metricsServer };
}
