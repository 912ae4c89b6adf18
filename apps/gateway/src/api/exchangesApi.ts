/**
 * Wires the capture API (issue 19) onto the gateway: the
 * exchange routes and the stats routes over the relay's capture; and the ring bounds from the environment.
 *
 * @module
 */
import { DEFAULT_RING_MAX_BYTES, DEFAULT_RING_MAX_EXCHANGES } from '@mcppipe/capture';
import type { ExchangeCaptureOptions, ExchangeDetail } from '@mcppipe/capture';
import { openRing } from '@mcppipe/store';
import type { Store } from '@mcppipe/store';
import type { Logger } from '../types.js';
import type { TunnelScopes } from '@mcppipe/events';
import type { FastifyInstance } from 'fastify';
import type { TunnelRelay } from '../tunnel/relay.js';
import { parseBytes, usage } from '../flagParsers.js';
import { splitLabel } from '../tunnel/address.js';
import { exchangesRoutes } from './exchanges.js';
import { statsRoutes } from './stats.js';

/** `MCPPIPE_CAPTURE=off` turns the capture off (the R10 bench's baseline); anything else keeps it on. */
export const CAPTURE_SWITCH_ENV = 'MCPPIPE_CAPTURE';

/** Environment variables of the capture: exchanges and bytes kept per tunnel, bytes kept per body. */
export const CAPTURE_ENV = {
  maxExchanges: 'MCPPIPE_CAPTURE_MAX_EXCHANGES',
  maxBytes: 'MCPPIPE_CAPTURE_MAX_BYTES',
  bodyCapBytes: 'MCPPIPE_CAPTURE_BODY_CAP_BYTES',
} as const;

/**
 * The capture options set in the environment (unset ones keep `@mcppipe/capture`'s defaults).
 *
 * @param env - the environment
 * @param shared - many nodes (`--redis`): the store to share the rings in, and where to warn when a write fails
 * @returns the options, or false for `MCPPIPE_CAPTURE=off`
 * @throws McpPipeError `MCPP_CLI_USAGE` naming the variable and its value: a count that is not a whole number, a
 *   size that is not bytes (`parseBytes`: `1048576`, `512kb`, `4mb`)
 */
export function captureOptions(
  env: NodeJS.ProcessEnv,
  shared?: { store: Store; logger: Logger },
): ExchangeCaptureOptions | false {
  if (env[CAPTURE_SWITCH_ENV] === 'off') return false;
  const out: ExchangeCaptureOptions = {};
  for (const [k, name] of Object.entries(CAPTURE_ENV) as [keyof typeof CAPTURE_ENV, string][]) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    if (k === 'bodyCapBytes' && v.trim() === '0')
      out[k] = 0; // keep no bodies, metadata only
    else if (k !== 'maxExchanges') out[k] = parseBytes(name, v);
    else if (/^\d+$/.test(v.trim()) && Number(v) > 0 && Number.isSafeInteger(Number(v))) out[k] = Number(v);
    else throw usage(`${name}: "${v}" is not a count of exchanges (a whole number, e.g. 1000)`);
  }
  if (shared === undefined) return out;
  // issue 20: the ring of each tunnel also in the store (same bounds), read by every node; gone a day after its last call
  out.shared = openRing<ExchangeDetail>(shared.store, 'exchanges', {
    maxCount: out.maxExchanges ?? DEFAULT_RING_MAX_EXCHANGES,
    maxBytes: out.maxBytes ?? DEFAULT_RING_MAX_BYTES,
    ttlMs: SHARED_RING_TTL_MS,
  });
  let warned = false; // one warning per outage is enough: the owner node keeps its own ring
  out.sharedWrites = {
    onError: (err) => {
      if (!warned)
        shared.logger.warn({ err: (err as Error).message }, 'could not write exchanges to the store');
      warned = true;
    },
  };
  return out;
}

/** A tunnel's shared ring disappears this long after its last exchange. */
export const SHARED_RING_TTL_MS = 86_400_000;

/**
 * The capture routes (exchanges, Live, replay, stats, stars) over the relay's capture, registered inside the one
 * `/api` plugin (after its caller hook).
 *
 * @param relay - the tunnel relay (its capture, registry, seen tunnels, key names)
 * @param scopes - the tunnels' event scopes: their tool pins give the stats' `changed` marker (E4); unset: none
 * @returns the route registrar
 */
export function captureRoutes(relay: TunnelRelay, scopes?: TunnelScopes): (api: FastifyInstance) => void {
  const live = (id: string) => {
    for (const c of splitLabel(id)) {
      const t = relay.registry.lookup(c.subdomain, c.account);
      if (t !== undefined) return t;
    }
    return undefined;
  };
  const known = (id: string) => relay.seen(id) || live(id) !== undefined;
  return (api) => {
    exchangesRoutes(api, {
      capture: relay.capture,
      known,
      live,
      keyName: relay.keyName,
      cluster: relay.cluster,
    });
    statsRoutes(api, {
      capture: relay.capture,
      known,
      held: (id) => live(id) !== undefined,
      cluster: relay.cluster,
      ...(scopes && {
        pins: async (id, account) => (await scopes.get(id, account)?.tools())?.tools ?? [],
      }),
    });
  };
}
