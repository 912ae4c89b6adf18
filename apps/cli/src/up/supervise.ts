/**
 * Step 2 of `mcppipe up` (see run.ts): the supervisor over the layout's upstreams, with the aggregator's restart
 * policy, the client capabilities mcppipe declares, and the counting `spawn` (which hands over early children).
 *
 * @module
 */
import type { Layout } from '@mcppipe/config';
import { Supervisor } from '@mcppipe/supervisor';
import { aggregatorPolicy } from '@mcppipe/upstream-state';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import type { EarlyStart } from './early.js';
import type { CountedSpawns } from './spawns.js';
import { trace, tracing } from './trace.js';

/** Client capabilities mcppipe declares to upstreams: requests are bridged to the agent whose call is in flight. */
const clientCapabilities = { sampling: {}, elicitation: { form: {} }, roots: {} };

/**
 * Builds the supervisor (not started): state changes feed the metrics and, with tracing on, the trace; the start is
 * logged with the upstreams' names and the layout's mode.
 *
 * @param steps - the layout, the metrics (undefined without `--metrics-addr`) and the counting spawns
 * @param logger - the CLI's logger (the supervisor logs as its `supervisor` child)
 * @param early - the early start, if any: its supervisor id, and whether orphans were already reaped
 * @returns the supervisor
 */
export function supervise(
  steps: { layout: Layout; metrics: Metrics | undefined; spawns: CountedSpawns },
  logger: Logger,
  early: EarlyStart | undefined,
): Supervisor {
  const { layout, metrics } = steps;
  const supervisor = new Supervisor({
    ...(early && { id: early.supervisorId, reapOrphans: !early.reaped }),
    upstreams: layout.upstreams,
    policy: aggregatorPolicy(),
    logger: logger.child({ component: 'supervisor' }),
    clientCapabilities,
    spawn: steps.spawns.spawn,
  });
  if (tracing)
    supervisor.on('state_changed', (e) => trace('upstream state', { upstream: e.upstream, to: e.to }));
  // the supervisor logs every transition itself; here they only feed the metrics
  if (metrics) supervisor.on('state_changed', (e) => metrics.onStateChanged(e));
  logger.info(
    { upstreams: layout.upstreams.map((u) => u.name), mode: layout.mode },
    `starting ${layout.upstreams.length} upstream(s)`,
  );
  return supervisor;
}
