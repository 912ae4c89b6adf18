/**
 * Hot reload (DESIGN.md G10): applies a config diff to the supervisor. Removed servers stop, changed ones
 * restart, added ones start; unchanged servers are not touched, so their connections and in-flight calls
 * carry on. A failure for one server is logged and does not stop the others.
 *
 * @module
 */
import type { ConfigChange } from '@mcppipe/config';
import type { UpstreamSpec } from '@mcppipe/supervisor';
import type { Logger } from './types.js';

/** The part of the supervisor a reload drives. */
export interface ReloadTarget {
  add(spec: UpstreamSpec): Promise<unknown>;
  remove(name: string): Promise<unknown>;
  replace(spec: UpstreamSpec): Promise<unknown>;
}

/**
 * Logs the diff and applies it.
 *
 * @param target - the supervisor
 * @param change - what `watchConfig` reported
 * @param logger - where the diff and failures go
 */
export async function applyConfigChange(
  target: ReloadTarget,
  change: ConfigChange,
  logger: Logger,
): Promise<void> {
  const { added, removed, changed, unchanged } = change.diff;
  logger.info(
    {
      added: added.map((u) => u.name),
      removed: removed.map((u) => u.name),
      changed: changed.map((c) => ({ name: c.name, fields: c.fields })),
      unchanged: unchanged.map((u) => u.name),
    },
    'config changed: applying',
  );
  const report = (action: string, name: string) => (err: unknown) => {
    logger.error(
      { upstream: name, action, err: err instanceof Error ? err.message : String(err) },
      'config reload step failed',
    );
  };
  await Promise.all(removed.map((u) => target.remove(u.name).catch(report('remove', u.name))));
  await Promise.all([
    ...changed.map((c) => target.replace(c.next).catch(report('replace', c.name))),
    ...added.map((u) => target.add(u).catch(report('add', u.name))),
  ]);
  logger.info({ servers: change.next.upstreams.length }, 'config reloaded');
}
