import type { McpHttpHost } from '@mcppipe/http';
import { Supervisor } from '@mcppipe/supervisor';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { aggregatorPolicy } from '@mcppipe/upstream-state';
import type { UpArgs } from '../commands/up.js';
import { createLogger } from '../logger.js';
import { resolveLayout } from './layout.js';
import { listenFailed, parseHostPort, version } from './util.js';
import { takeEarlyStart } from './early.js';
import { trace, tracing } from './trace.js';
import { planTunnel } from './tunnel.js';
import type { RunningTunnel } from './tunnel.js';
import { spawn as nodeSpawn } from 'node:child_process';
import type { SpawnOptions } from 'node:child_process';
import type { AddressInfo } from 'node:net';

/** Client capabilities mcppipe declares to upstreams: requests are bridged to the agent whose call is in flight. */
const clientCapabilities = { sampling: {}, elicitation: { form: {} }, roots: {} };

/**
 * Longest the startup table waits for every upstream's first attempt, in ms (the URL is printed with it); when a slow
 * upstream was still `connecting` then, the table is printed again once every first attempt has ended.
 * `MCPPIPE_TABLE_WAIT_MS` overrides it (internal: tests use it so as not to wait 10 s).
 */
function tableWaitMs(env: NodeJS.ProcessEnv): number {
  const raw = env['MCPPIPE_TABLE_WAIT_MS'];
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : 10_000;
}

/**
 * `mcppipe up`: resolve the layout, start listening at once, start the upstreams (late ones join with a
 * `list_changed`), print the table and the URL, and stop cleanly on SIGINT/SIGTERM.
 *
 * @param args - parsed flags
 */
export async function runUp(args: UpArgs): Promise<void> {
  const logger = createLogger(args.logLevel, args.logFormat);
  const metricsAt = args.metricsAddr ? parseHostPort(args.metricsAddr) : undefined;
  const policy = aggregatorPolicy();
  trace('logger created');
  const early = takeEarlyStart();
  const layout =
    early?.layoutFor({ upstream: args.upstream, stdio: args.stdio, upstreamsFile: args.upstreamsFile }) ??
    (await resolveLayout(args, logger));
  trace('layout resolved');
  const tunnelPlan = planTunnel(args, layout); // exit 2 before anything starts (T7)
  const metrics = args.metricsAddr ? new (await import('../metrics.js')).Metrics() : undefined;

  // Cold start: the serving side loads only once every stdio upstream has been spawned, so the children start
  // their own (long) module loading first instead of waiting behind ours.
  let toSpawn = layout.upstreams.filter((u) => u.transport === 'stdio').length;
  let allSpawned!: () => void;
  const spawned = new Promise<void>((resolve) => (allSpawned = resolve));
  if (toSpawn === 0) allSpawned();
  const spawnCounted = ((command: string, argv: readonly string[], options: SpawnOptions) => {
    const adopted = early?.adopt(command, argv, options);
    const child = adopted ?? nodeSpawn(command, argv, options);
    trace(adopted ? 'upstream handed over' : 'upstream spawned', { pid: child.pid });
    if (--toSpawn === 0) allSpawned();
    return child;
  }) as typeof nodeSpawn;
  const supervisor = new Supervisor({
    ...(early && { id: early.supervisorId, reapOrphans: !early.reaped }),
    upstreams: layout.upstreams,
    policy,
    logger: logger.child({ component: 'supervisor' }),
    clientCapabilities,
    spawn: spawnCounted,
  });
  if (tracing)
    supervisor.on('state_changed', (e) => trace('upstream state', { upstream: e.upstream, to: e.to }));
  // the supervisor logs every transition itself; here they only feed the metrics
  if (metrics) supervisor.on('state_changed', (e) => metrics.onStateChanged(e));
  logger.info(
    { upstreams: layout.upstreams.map((u) => u.name), mode: layout.mode },
    `starting ${layout.upstreams.length} upstream(s)`,
  );
  // A signal before the serving side is up stops the upstreams (their own process groups would outlive us);
  // once it is up, `stop` becomes the graceful shutdown below.
  let stopping = false;
  let stop = async (_signal: string): Promise<void> => {
    stopping = true;
    setTimeout(() => process.exit(1), 15_000).unref();
    await supervisor.stop().catch(() => {});
    process.exit(0);
  };
  const onSignal = (signal: string) => {
    if (!stopping) void stop(signal);
  };
  early?.handOverSignals();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const started = Date.now();
  trace('supervisor start');
  const upstreamsStarted = supervisor.start(); // overlaps the HTTP setup below; never rejects for one upstream
  // The serving side loads while the upstreams start (cold start): the CLI is built with code splitting.
  await Promise.race([spawned, upstreamsStarted]);
  early?.discard(); // early children the supervisor did not ask for
  const [
    { createAggregator, listenStreamSubscriptions },
    { createMcpHttpHost },
    { buildHttpServer, isLoopback },
    report,
  ] = await Promise.all([
    import('@mcppipe/aggregator'),
    import('@mcppipe/http'),
    import('../httpServer.js'),
    import('./report.js'),
  ]);
  trace('serving modules loaded');
  const metered: UpstreamRegistry = metrics ? metrics.meter(supervisor) : supervisor;
  const registry: UpstreamRegistry = tracing
    ? new Proxy(metered, {
        get(target, key) {
          if (key === 'request')
            return async (...a: Parameters<UpstreamRegistry['request']>) => {
              trace('upstream request', { upstream: a[0], method: a[1].method });
              const r = await target.request(...a);
              trace('upstream answered', { upstream: a[0], method: a[1].method });
              return r;
            };
          const v = Reflect.get(target, key, target) as unknown;
          return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
        },
      })
    : metered;
  const serverInfo = { name: 'mcppipe', version };
  const aggregator = createAggregator({
    registry,
    mode: layout.mode,
    serverInfo,
    logger: logger.child({ component: 'aggregator' }),
  });

  const hostOptions = {
    stateless: args.stateless,
    maxSessions: args.maxSessions,
    sessionIdleTimeoutMs: args.sessionIdleSecs * 1000,
    maxRequestBodySize: args.bodyLimit,
    logger: logger.child({ component: 'http' }),
  };
  // --stateless: a 2025-era request has no session, so its server must not promise change notifications
  const createServer: typeof aggregator.createServer = args.stateless
    ? (ctx) => aggregator.createServer({ ...ctx, sessionless: true })
    : aggregator.createServer;
  const mcp = createMcpHttpHost(createServer, {
    ...hostOptions,
    onResourceSubscriptions: listenStreamSubscriptions(aggregator),
  });
  aggregator.on('list_changed', (kind) => {
    if (kind === 'tools') mcp.notify.toolsChanged();
    else if (kind === 'prompts') mcp.notify.promptsChanged();
    else mcp.notify.resourcesChanged();
  });
  aggregator.on('resource_updated', (uri) => mcp.notify.resourceUpdated(uri));
  const endpoints: Record<string, McpHttpHost> = { '/mcp': mcp };
  let closeHub: (() => Promise<void>) | undefined;
  if (args.hub) {
    const { createHub } = await import('@mcppipe/hub');
    const hub = createHub({ registry, logger: logger.child({ component: 'hub' }) });
    endpoints['/hub'] = createMcpHttpHost(() => hub.createServer(), hostOptions);
    closeHub = () => hub.close();
  }

  const app = await buildHttpServer({
    host: args.host,
    bodyLimit: args.bodyLimit,
    allowedOrigins: args.allowedOrigins,
    allowedHosts: args.allowedHosts,
    endpoints,
  });
  const address = await app.listen({ host: args.host, port: args.port }).catch(async (err: unknown) => {
    await supervisor.stop(); // the upstreams were already starting: leave no child behind
    throw listenFailed(err, { host: args.host, port: args.port, hint: '--port (or MCPPIPE_PORT)' });
  });
  trace('listening');
  if (tracing) app.server.once('request', () => trace('first request'));
  logger.info({ address }, 'listening');
  let tunnel: RunningTunnel | undefined;
  if (tunnelPlan) {
    const { startTunnel } = await import('./tunnel.js');
    const { port } = app.server.address() as AddressInfo;
    tunnel = await startTunnel(tunnelPlan, { host: args.host, port }, { logger, version });
  }
  const metricsServer =
    metrics && metricsAt
      ? await metrics.listen(...metricsAt).catch((err: unknown) => {
          throw listenFailed(err, {
            host: metricsAt[0],
            port: metricsAt[1],
            hint: '--metrics-addr HOST:PORT',
          });
        })
      : undefined;
  if (metricsAt && !isLoopback(metricsAt[0]))
    logger.warn({ metricsAddr: args.metricsAddr }, 'metrics are served beyond loopback');

  stop = async (signal: string) => {
    stopping = true;
    setTimeout(() => process.exit(1), 15_000).unref(); // a stuck child or connection cannot keep us alive
    try {
      logger.info({ signal }, 'stopping: no new connections; in-flight calls get up to 3 s');
      await tunnel?.close(); // first: the relay frees the subdomain at once
      const closing = app.close(); // stops accepting; resolves once every connection has ended
      for (let waited = 0; app.inflight() > 0 && waited < 3_000; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      await Promise.allSettled(Object.values(endpoints).map((h) => h.close())); // ends sessions and their SSE streams
      app.server.closeAllConnections();
      await closing.catch(() => {});
      metricsServer?.server.close();
      await closeHub?.().catch(() => {});
      await aggregator.close().catch(() => {});
      await supervisor.stop();
      logger.info({}, 'stopped');
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    } finally {
      process.exit(0);
    }
  };
  if (stopping) return; // a signal came while the serving side was starting: that stop is under way

  const url = `${address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]')}/mcp`;
  // the table waits for the first attempts, but not longer than this: a slow upstream (a first `npx` download)
  // joins later with a list_changed, and the URL is printed now
  let waited: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  const allSettled = upstreamsStarted.then(() => (settled = true));
  await Promise.race([
    allSettled,
    new Promise<void>((resolve) => (waited = setTimeout(resolve, tableWaitMs(process.env)))),
  ]);
  clearTimeout(waited);
  trace('upstreams started');
  if (stopping) return;
  await report.warmLists(aggregator);
  trace('lists warmed');
  if (stopping) return;
  report.printTable(supervisor, aggregator, { startedAt: started });
  if (tunnel) {
    // the table shows the public URL once connected; an unreachable relay does not hold it back (its state is shown)
    let tunnelWait: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      tunnel.client.connected().catch(() => {}),
      new Promise<void>((resolve) => (tunnelWait = setTimeout(resolve, tableWaitMs(process.env)))),
    ]);
    clearTimeout(tunnelWait);
  }
  if (stopping) return;
  report.printReady(url, {
    hub: args.hub,
    metrics: metricsServer?.address,
    mode: layout.mode,
    tunnel: tunnel && { line: tunnel.line(), publicUrl: tunnel.client.publicUrl },
  });
  if (settled) return;
  // some upstream was still connecting: print the table again once the last one has settled (issue 13.5)
  await allSettled;
  if (stopping) return;
  await report.warmLists(aggregator);
  if (stopping) return;
  report.printTable(supervisor, aggregator, { startedAt: started, title: 'every upstream has settled' });
}
