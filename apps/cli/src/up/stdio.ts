import type { Readable, Writable } from 'node:stream';
import type { Aggregator } from '@mcppipe/aggregator';
import type { Layout } from '@mcppipe/config';
import type { Supervisor } from '@mcppipe/supervisor';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import type { Shutdown } from './shutdown.js';
import { trace } from './trace.js';

/** What {@link serveStdio} serves, and where. */
export interface StdioOptions {
  /** The aggregator (either mode): one 2025-era session is built from it, as the HTTP host does per session. */
  aggregator: Aggregator;
  logger: Logger;
  /** Called once when the client has gone (stdin ended or the channel broke): the caller stops everything. */
  onClosed: () => void;
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`: nothing else may ever write there. */
  stdout?: Writable;
}

/** The stdio front door, serving. */
export interface StdioServing {
  /** Closes the session and its transport (idempotent). */
  close(): Promise<void>;
}

/**
 * The stdio front door of `mcppipe up --transport stdio`: the aggregator's server for one 2025-era session, the same
 * factory the HTTP host calls per session (namespacing, progress, cancellation, `list_changed`, sampling and
 * elicitation bridged to this one client), connected to the SDK's `StdioServerTransport`. In `single` mode the
 * aggregator forwards the one upstream verbatim, as HTTP's single mode does. When stdin ends, `onClosed` is called.
 *
 * Call it once the upstreams' first attempts have settled (or the table wait passed): capabilities are taken when
 * the session is built, and the client's `initialize` waits in the pipe meanwhile.
 *
 * @param options - the aggregator, logger, close callback and (for tests) the streams
 * @returns how to close the session
 */
export async function serveStdio(options: StdioOptions): Promise<StdioServing> {
  const { logger } = options;
  const server = options.aggregator.createServer({ era: 'legacy' });
  const transport = new StdioServerTransport(
    options.stdin ?? process.stdin,
    options.stdout ?? process.stdout,
  );
  let closed = false;
  server.onclose = () => {
    if (closed) return;
    closed = true;
    logger.info({}, 'stdin closed: the client has gone');
    options.onClosed();
  };
  // reporting only: a bad line from the client is answered (or dropped) by the SDK, never fatal here
  server.onerror = (err) => logger.debug({ error: err.message }, 'stdio channel error');
  await server.connect(transport);
  trace('stdio connected');
  return {
    close: async () => {
      closed = true;
      await server.close().catch(() => {});
    },
  };
}

/** What {@link serveStdioSteps} builds on: what `runUp` has when the serving side is due. */
export interface StdioStepsOptions {
  layout: Layout;
  supervisor: Supervisor;
  /** Settles once every upstream's first attempt has ended. */
  upstreamsStarted: Promise<unknown>;
  /** When the upstreams started (epoch ms). */
  startedAt: number;
  metrics: Metrics | undefined;
  metricsAt: [host: string, port: number] | undefined;
  logger: Logger;
  shutdown: Shutdown;
  /** `--deny-tool` / `--allow-tool` globs (the same policy as over HTTP). */
  tools: { denyTool: readonly string[]; allowTool: readonly string[] };
}

/**
 * The serving steps of `mcppipe up --transport stdio`: the aggregator (same composition as HTTP), metrics if asked
 * for, then, once the upstreams' first attempts have settled (bounded by the table wait), the session on
 * stdin/stdout; the startup table and the ready line go to stderr. The end of stdin stops everything (children
 * included) and exits 0.
 *
 * @param o - the layout, supervisor and its start, metrics, logger and the shutdown
 * @throws McpPipeError `MCPP_CLI_LISTEN_FAILED` for `--metrics-addr`
 */
export async function serveStdioSteps(o: StdioStepsOptions): Promise<void> {
  const [{ composeAggregator }, { listenMetrics }, { printStartup }] = await Promise.all([
    import('./compose.js'),
    import('./listenMetrics.js'),
    import('./startupTable.js'),
  ]);
  const { aggregator } = composeAggregator({
    layout: o.layout,
    upstreams: o.supervisor,
    metrics: o.metrics,
    logger: o.logger,
    tools: o.tools,
  });
  const metricsServer = await listenMetrics(o.metrics, o.metricsAt, o.logger).catch(async (err: unknown) => {
    await o.supervisor.stop();
    throw err;
  });
  let stdio: StdioServing | undefined;
  o.shutdown.serving({
    app: undefined,
    endpoints: {},
    aggregator,
    metricsServer,
    closeHub: undefined,
    closeStdio: async () => stdio?.close(),
  });
  if (o.shutdown.stopping) return;
  await printStartup({
    registry: o.supervisor,
    aggregator,
    upstreamsStarted: o.upstreamsStarted,
    startedAt: o.startedAt,
    ready: { url: undefined, hub: false, metrics: metricsServer?.address, mode: o.layout.mode },
    stopping: () => o.shutdown.stopping,
    beforeReady: async () => {
      stdio = await serveStdio({
        aggregator,
        logger: o.logger,
        onClosed: () => o.shutdown.stop('stdin closed'),
      });
    },
  });
}
