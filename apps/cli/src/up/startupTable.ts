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
  /** The tunnel, when `--tunnel` is set: the URL line waits (at most the table wait) for it to connect. */
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
  await warmLists(r.aggregator);
  trace('lists warmed');
  if (r.stopping()) return;
  await r.beforeReady?.();
  if (r.stopping()) return;
  printTable(r.registry, r.aggregator, { startedAt: r.startedAt });
  if (r.tunnel) {
    // the URL line shows the public URL once connected; an unreachable relay does not hold it back (its state is shown)
    let tunnelWait: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      r.tunnel.client.connected().catch(() => {}),
      new Promise<void>((resolve) => (tunnelWait = setTimeout(resolve, tableWaitMs(process.env)))),
    ]);
    clearTimeout(tunnelWait);
    if (r.stopping()) return;
  }
  const tunnel = r.tunnel && {
    line: r.tunnel.line(),
    publicUrl: r.tunnel.client.publicUrl,
    auth: r.tunnel.auth,
  };
  printReady(url, { ...extra, tunnel });
  if (settled) return;
  await allSettled;
  if (r.stopping()) return;
  await warmLists(r.aggregator);
  if (r.stopping()) return;
  printTable(r.registry, r.aggregator, { startedAt: r.startedAt, title: 'every upstream has settled' });
}
