import type { Aggregator } from '@mcppipe/aggregator';
import type { UpstreamRegistry } from '@mcppipe/supervisor';
import { printReady, printTable, warmLists } from './report.js';
import { trace } from './trace.js';
import type { RunningTunnel } from './tunnel.js';

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
 * Longest the ready lines wait for the tunnel to connect, in ms, counted from the start of {@link printStartup} (so
 * it overlaps the table wait): the client lines name the public URL only if it is connected by then. A relay that is
 * slow or unreachable does not hold the serving line back; the tunnel line shows its state, and the
 * `tunnel connected: <url>` log line follows when it connects.
 */
const TUNNEL_WAIT_MS = 1_500;

/** What {@link printStartup} reports on. */
export interface StartupReport {
  registry: UpstreamRegistry;
  aggregator: Aggregator;
  /** Settles once every upstream's first attempt has ended. */
  upstreamsStarted: Promise<unknown>;
  /** When the upstreams started (epoch ms). */
  startedAt: number;
  /** The `/mcp` URL (undefined with `--transport stdio`), and what else to print with it. */
  ready: { url: string | undefined } & Parameters<typeof printReady>[1];
  /**
   * Runs once the first table is due, before the table and the ready lines are printed: with `--transport stdio`
   * it starts reading stdin (the session's capabilities are those of the upstreams up by then).
   */
  beforeReady?: () => Promise<void>;
  /** The tunnel, when `--tunnel` is set: the ready lines wait (at most 1.5 s from the start) for it to connect. */
  tunnel?: RunningTunnel | undefined;
  /** Whether a signal came (then nothing more is printed). */
  stopping: () => boolean;
}

/**
 * Prints the startup table and the URL once every upstream's first attempt has ended, or after the table wait
 * (a slow upstream, e.g. a first `npx` download, joins later with a `list_changed`); in that case the table is
 * printed again once the last one has settled (issue 13.5).
 *
 * @param r - the registry, aggregator, start promise and time, the URL line's parts and the stop check
 */
export async function printStartup(r: StartupReport): Promise<void> {
  const { url, ...extra } = r.ready;
  const tunnelWait = r.tunnel && waitForTunnel(r.tunnel); // runs alongside the table wait
  let waited: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  const allSettled = r.upstreamsStarted.then(() => (settled = true));
  await Promise.race([
    allSettled,
    new Promise<void>((resolve) => (waited = setTimeout(resolve, tableWaitMs(process.env)))),
  ]);
  clearTimeout(waited);
  trace('upstreams started');
  if (r.stopping()) return;
  const listed = await warmLists(r.aggregator);
  trace('lists warmed');
  if (r.stopping()) return;
  await r.beforeReady?.();
  await tunnelWait;
  if (r.stopping()) return;
  // the table and the ready lines together, with nothing logged between them
  printTable(r.registry, r.aggregator, { startedAt: r.startedAt, listed });
  const tunnel = r.tunnel && {
    line: r.tunnel.line(),
    publicUrl: r.tunnel.client.status.status === 'connected' ? r.tunnel.client.publicUrl : undefined,
    auth: r.tunnel.auth,
  };
  printReady(url, { ...extra, tunnel });
  if (settled) return;
  await allSettled;
  if (r.stopping()) return;
  const settledLists = await warmLists(r.aggregator);
  if (r.stopping()) return;
  printTable(r.registry, r.aggregator, {
    startedAt: r.startedAt,
    title: 'every upstream has settled',
    listed: settledLists,
  });
}

/** Settles once the tunnel is connected (or refused, or closed), or after {@link TUNNEL_WAIT_MS}. */
async function waitForTunnel(tunnel: RunningTunnel): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    tunnel.client.connected().catch(() => {}),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, TUNNEL_WAIT_MS))),
  ]);
  clearTimeout(timer);
}
