import type { Server, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { TunnelClient, TunnelStatus } from '@mcppipe/tunnel';
import type { LocalEventScope } from '@mcppipe/events';
import type { Logger } from 'pino';
import type { TunnelPlan } from './tunnelPlan.js';

export interface RunningTunnel {
  readonly client: TunnelClient;
  /**
   * Who may call the public URL: what the relay applies (the owner's saved setting wins, T5) once it said, else
   * `--tunnel-auth`. The client line adds the key header for `api-key`.
   */
  readonly auth: string;
  /** One line for the startup table: `tunnel https://… (connected)` or `tunnel … (reconnecting: …)`. */
  line(): string;
  /**
   * Closes the tunnel (the relay frees the subdomain at once) and, in zero-knowledge mode, the loopback pool. With
   * `graceMs` it drains first (`TunnelClient.close`): no new public request comes in (the relay answers `503`
   * `tunnel_offline`), the open ones get up to `graceMs`; the relay's own event-scope streams end at once.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * The one line logged for a status change (T6): `tunnel connected: https://…`, `tunnel reconnecting in 4 s (…)`,
 * `tunnel refused: … — the local endpoint keeps serving; …` (what to change, unless the relay's reason says it).
 */
export function statusLine(
  s: TunnelStatus,
  plan: Pick<TunnelPlan, 'subdomain' | 'relayUrl'>,
): string | undefined {
  switch (s.status) {
    case 'connected':
      return `tunnel connected: ${s.publicUrl}`;
    case 'reconnecting':
      return `tunnel reconnecting in ${Math.round(s.retryInMs / 1000)} s (${s.reason})`;
    case 'refused': {
      const change =
        s.code === 'MCPP_TUNNEL_BAD_KEY'
          ? 'check --api-key (or MCPPIPE_API_KEY)'
          : s.code === 'MCPP_TUNNEL_SUBDOMAIN_TAKEN'
            ? `choose another --subdomain than ${JSON.stringify(plan.subdomain)}`
            : s.code === 'MCPP_TUNNEL_INVALID_SUBDOMAIN'
              ? 'choose another --subdomain'
              : s.code === 'MCPP_TUNNEL_NO_RELAY'
                ? `no relay at ${new URL(plan.relayUrl).origin}: is it a gateway started with --tunnel-zone, and is --tunnel its base URL (no path)?`
                : 'see the reason, then restart mcppipe up';
      const flag = /--[a-z-]+/.exec(change)?.[0]; // the relay's reason may already say it: once is enough
      const advice = flag !== undefined && s.reason.includes(flag) ? '' : `; ${change}`;
      return `tunnel refused: ${s.reason} — the local endpoint keeps serving${advice}`;
    }
    default:
      return undefined;
  }
}

/**
 * Starts the tunnel (T2–T7): dials the relay and serves public requests with the CLI's own listener, in process
 * (`serveInProcess`: its request handler sees the loopback `Host`, so its DNS-rebinding check stays on and nothing
 * is served twice; no loopback socket is crossed), or, in zero-knowledge
 * mode, relays the HTTP bytes to the single HTTP upstream without parsing them. The auth mode and IP allowlist
 * travel to the relay in the connect metadata (`auth`, `allowIp`), which enforces them (T5). With an event `scope`
 * (not in zero-knowledge mode) the relay's own requests under `/.mcppipe/` are answered from it (E1): events,
 * upstreams and tool pins; they never reach the loopback listener.
 *
 * @param plan - from {@link planTunnel}
 * @param listener - the CLI's own loopback listener: its address and its HTTP server
 * @param context - `logger` (status changes are logged one line each), the CLI `version` (sent as metadata) and
 *   the event `scope` served to the relay
 * @returns the running tunnel (already connecting)
 */
export async function startTunnel(
  plan: TunnelPlan,
  listener: { host: string; port: number; server: Pick<Server, 'emit'> },
  context: { logger: Logger; version: string; scope?: LocalEventScope | undefined },
): Promise<RunningTunnel> {
  const { logger, version, scope } = context;
  const { connectTunnel, forwardToLoopback, serveInProcess } = await import('@mcppipe/tunnel');
  const served = scope && (await import('@mcppipe/events')).serveEventScope(scope);
  let handler: ((req: Http2ServerRequest, res: Http2ServerResponse) => void) & { close(): void };
  if (plan.zeroKnowledge) {
    const target = new URL(plan.zeroKnowledge.url);
    const extra = plan.zeroKnowledge.headers ?? {};
    const forward = forwardToLoopback({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: Number(target.port || 80),
    });
    // Bytes only: the public path is mapped onto the upstream's URL and its configured headers are added; nothing
    // reads the body (T7).
    handler = Object.assign(
      (req: Http2ServerRequest, res: Http2ServerResponse) => {
        const query = req.url.indexOf('?');
        req.url = `${target.pathname}${query >= 0 ? req.url.slice(query) : target.search}`;
        for (const [k, v] of Object.entries(extra)) req.headers[k.toLowerCase()] = v;
        forward(req, res);
      },
      { close: () => forward.close() },
    );
  } else {
    const host = listener.host === '0.0.0.0' ? '127.0.0.1' : listener.host === '::' ? '::1' : listener.host;
    const authority = host.includes(':') ? `[${host}]:${listener.port}` : `${host}:${listener.port}`;
    // the listener's own request handler, in process: what a loopback request would reach, without the socket
    const serve = serveInProcess({ server: listener.server, authority });
    handler = Object.assign(
      (req: Http2ServerRequest, res: Http2ServerResponse) => {
        if (!served?.handle(req, res as unknown as ServerResponse)) serve(req, res);
      },
      { close: () => served?.close() },
    );
  }
  const metadata: Record<string, string> = { cli: `mcppipe/${version}`, auth: plan.auth };
  if (served && !plan.zeroKnowledge) metadata['events'] = '1'; // SCOPE_METADATA_KEY: the relay follows the scope
  if (plan.holdChangedTools) metadata['hold'] = '1'; // the settings' default for holdChangedTools
  if (plan.allowIp.length > 0) metadata['allow'] = plan.allowIp.join(','); // the relay's metadata keys: auth, allow (packages/tunnel README)
  let last: TunnelStatus = { status: 'connecting', attempt: 1 };
  const client = connectTunnel({
    relayUrl: plan.relayUrl,
    apiKey: plan.apiKey,
    subdomain: plan.subdomain,
    handler,
    zeroKnowledge: plan.zeroKnowledge !== undefined,
    metadata,
    logger: logger.child({ component: 'tunnel' }),
    onStatus: (s) => {
      last = s;
      const line = statusLine(s, plan);
      if (!line) return;
      const fields = { subdomain: plan.subdomain, status: s.status };
      if (s.status === 'connected') {
        logger.info(fields, line);
        const applied = client.auth;
        if (applied !== undefined && applied !== plan.auth)
          logger.warn(
            { ...fields, auth: applied, asked: plan.auth },
            `the relay applies auth ${applied} to this tunnel (saved in the dashboard's Settings), not --tunnel-auth ${plan.auth}; change it there`,
          );
      } else if (s.status === 'refused') logger.error({ ...fields, code: s.code }, line);
      else logger.warn(fields, line);
    },
  });
  if (plan.auth === 'none')
    logger.warn(
      { subdomain: plan.subdomain },
      'tunnel auth is none: anyone who knows the public URL can call your tools (use --tunnel-auth oauth or api-key)',
    );
  const auth = () => client.auth ?? plan.auth;
  return {
    client,
    get auth() {
      return auth();
    },
    line() {
      const s = last;
      const where = client.publicUrl ?? plan.relayUrl;
      const zk = plan.zeroKnowledge ? ', zero-knowledge' : '';
      const state =
        s.status === 'connected'
          ? 'connected'
          : s.status === 'reconnecting'
            ? `reconnecting: ${s.reason}`
            : s.status === 'refused'
              ? `refused: ${s.reason}`
              : s.status;
      return `tunnel ${where} (${state}; auth ${auth()}${zk})`;
    },
    async close(graceMs = 0) {
      served?.close(); // the relay's event-scope streams are no agent's call: they must not hold the drain open
      await client.close({ graceMs }).catch(() => {});
      handler.close();
    },
  };
}
