import type { AddressInfo } from 'node:net';
import { McpPipeError } from '@mcppipe/errors';
import type { Logger } from 'pino';
import type { UpArgs } from '../commands/up.js';
import { createLogger } from '../logger.js';
import type { EarlyStart } from './early.js';
import { takeEarlyStart } from './early.js';
import { resolveLayout } from './layout.js';
import { givenFlags } from './flagReaders.js';
import { Shutdown } from './shutdown.js';
import { countSpawns } from './spawns.js';
import { supervise } from './supervise.js';
import { trace } from './trace.js';
import { planTunnel } from './tunnelPlan.js';
import { parseHostPort, version } from './util.js';

/**
 * `--transport stdio` serves one client on stdin/stdout: the flags that only mean something over HTTP are refused
 * before anything starts (`--host`, `--port` and `--allowed-origins` when given, on the command line or by variable).
 *
 * @throws McpPipeError `MCPP_CLI_USAGE` for `--hub`, `--stateless`, `--tunnel`, `--host`, `--port` or
 *   `--allowed-origins` with `--transport stdio`
 */
function checkTransportFlags(args: UpArgs): void {
  if (args.transport !== 'stdio') return;
  const bound = givenFlags(process.argv.slice(2), process.env, ['host', 'port', 'allowed-origins']);
  const httpOnly = [
    ...(args.hub ? ['--hub'] : []),
    ...(args.stateless ? ['--stateless'] : []),
    ...(args.tunnel ? ['--tunnel'] : []),
    ...bound.values(),
  ];
  if (httpOnly.length > 0)
    throw new McpPipeError(
      'MCPP_CLI_USAGE',
      `${httpOnly.join(' and ')} ${httpOnly.length > 1 ? 'apply' : 'applies'} only to --transport http (stdio serves one client on stdin/stdout); drop ${httpOnly.length > 1 ? 'them' : 'it'} or use --transport http (or MCPPIPE_TRANSPORT=http)`,
    );
}

/** Step 1: the layout (read early, when the early start read the same sources) and the metrics, if asked for. */
async function prepare(args: UpArgs, logger: Logger, early: EarlyStart | undefined) {
  const layout =
    early?.layoutFor({ upstream: args.upstream, stdio: args.stdio, upstreamsFile: args.upstreamsFile }) ??
    (await resolveLayout(args, logger)); // --transport stdio: detection never prompts
  trace('layout resolved');
  const tunnelPlan = planTunnel(args, layout); // exit 2 before anything starts (T7)
  const metrics = args.metricsAddr ? new (await import('../metrics.js')).Metrics() : undefined;
  return { layout, metrics, tunnelPlan };
}

/**
 * `mcppipe up`: resolve the layout, start the upstreams (late ones join with a `list_changed`), load the serving side
 * while they start, listen, print the table and the URL, and stop cleanly on SIGINT/SIGTERM. Each step is a named
 * function in its own module: {@link countSpawns}, {@link supervise}, {@link Shutdown}, `composeServing`, `listenServing`,
 * `printStartup`; with `--transport stdio`, `serveStdioSteps` serves on stdin/stdout instead of listening, and the end
 * of stdin stops everything.
 *
 * @param args - parsed flags
 * @throws McpPipeError `MCPP_CLI_USAGE` for a bad `--metrics-addr` or an HTTP-only flag with `--transport stdio`, `MCPP_CLI_LISTEN_FAILED`, and the layout's errors
 */
export async function runUp(args: UpArgs): Promise<void> {
  const logger = createLogger(args.logLevel, args.logFormat);
  const metricsAt = args.metricsAddr ? parseHostPort(args.metricsAddr) : undefined;
  checkTransportFlags(args);
  trace('logger created');
  const early = takeEarlyStart();
  const { layout, metrics, tunnelPlan } = await prepare(args, logger, early);
  const spawns = countSpawns(layout.upstreams.filter((u) => u.transport === 'stdio').length, early);
  const supervisor = supervise({ layout, metrics, spawns }, logger, early);
  const shutdown = new Shutdown(supervisor, logger);
  early?.handOverSignals();
  shutdown.install();
  const startedAt = Date.now();
  trace('supervisor start');
  const upstreamsStarted = supervisor.start(); // overlaps the HTTP setup below; never rejects for one upstream
  // The serving side loads while the upstreams start (cold start): the CLI is built with code splitting.
  await Promise.race([spawns.allSpawned, upstreamsStarted]);
  early?.discard(); // early children the supervisor did not ask for
  if (args.transport === 'stdio') {
    const { serveStdioSteps } = await import('./stdio.js');
    await serveStdioSteps({
      layout,
      supervisor,
      upstreamsStarted,
      startedAt,
      metrics,
      metricsAt,
      logger,
      shutdown,
      tools: args,
    });
    return;
  }
  const [{ composeServing }, { listenServing }, { printStartup }] = await Promise.all([
    import('./compose.js'),
    import('./listen.js'),
    import('./startupTable.js'),
  ]);
  trace('serving modules loaded');
  // E1/E4: behind a tunnel (not zero-knowledge) the lists are pinned and the relay reads the event scope
  const events =
    tunnelPlan && !tunnelPlan.zeroKnowledge
      ? await (
          await import('./events.js')
        ).createCliEvents(supervisor, {
          hold: tunnelPlan.holdChangedTools,
          single: layout.mode === 'single',
          logger,
        })
      : undefined;
  const upstreams = events?.registry ?? supervisor;
  const composed = await composeServing({ args, layout, upstreams, metrics, logger });
  const listening = await listenServing({
    args,
    endpoints: composed.endpoints,
    supervisor,
    metrics,
    metricsAt,
    logger,
  });
  const tunnel = tunnelPlan
    ? await (
        await import('./tunnel.js')
      ).startTunnel(
        tunnelPlan,
        {
          host: args.host,
          port: (listening.app.server.address() as AddressInfo).port,
          server: listening.app.server,
        },
        { logger, version, scope: events?.scope },
      )
    : undefined;
  shutdown.serving({ ...composed, app: listening.app, metricsServer: listening.metricsServer, tunnel });
  if (shutdown.stopping) return; // a signal came while the serving side was starting: that stop is under way
  const url = `${listening.address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]')}/mcp`;
  await printStartup({
    registry: supervisor,
    aggregator: composed.aggregator,
    upstreamsStarted,
    startedAt,
    ready: { url, hub: args.hub, metrics: listening.metricsServer?.address, mode: layout.mode },
    tunnel,
    stopping: () => shutdown.stopping,
  });
}
