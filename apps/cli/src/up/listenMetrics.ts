import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { isLoopbackHost } from '@mcppipe/http';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import { listenFailed } from './util.js';

/** The metrics server of `--metrics-addr`, listening. */
export interface MetricsServer {
  server: Server;
  address: AddressInfo;
}

/**
 * Serves the metrics on `--metrics-addr` (warning when that is beyond loopback); both front doors use it. Its own
 * module: the stdio front door must not load the HTTP serving side (Fastify) for it (cold start, issue 21).
 *
 * @param metrics - the metrics, when `--metrics-addr` was given
 * @param metricsAt - `--metrics-addr` parsed
 * @param logger - the CLI's logger
 * @returns the metrics server, or undefined without `--metrics-addr`
 * @throws McpPipeError `MCPP_CLI_LISTEN_FAILED` naming `--metrics-addr`
 */
export async function listenMetrics(
  metrics: Metrics | undefined,
  metricsAt: [host: string, port: number] | undefined,
  logger: Logger,
): Promise<MetricsServer | undefined> {
  if (!metrics || !metricsAt) return undefined;
  const server = await metrics.listen(...metricsAt).catch((err: unknown) => {
    const hint = '--metrics-addr HOST:PORT';
    throw listenFailed(err, { host: metricsAt[0], port: metricsAt[1], hint: { host: hint, port: hint } });
  });
  if (!isLoopbackHost(metricsAt[0]))
    logger.warn({ metricsAddr: `${metricsAt[0]}:${metricsAt[1]}` }, 'metrics are served beyond loopback');
  return server;
}
