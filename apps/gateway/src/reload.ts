/**
 * Hot reload (DESIGN.md G10): applies a config diff to the supervisor. Removed servers stop, changed ones
 * restart, added ones start; unchanged servers are not touched, so their connections and in-flight calls
 * carry on. A failure for one server is logged and does not stop the others. A changed `policies` section swaps
 * the live policy (P3).
 *
 * @module
 */
import type { PolicyGate } from '@mcppipe/aggregator';
import { watchConfig } from '@mcppipe/config';
import type { ConfigChange, ConfigWatcher, Layout } from '@mcppipe/config';
import { compilePolicy } from '@mcppipe/policy';
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

/**
 * The policy of a layout, compiled (P3); `undefined` when it has no `policies` section.
 *
 * @param layout - a validated `mcp.json` layout (its section was checked by `validatePolicyConfig`)
 * @throws McpPipeError `MCPP_POLICY_INVALID` (not reached for a validated layout)
 */
export function layoutPolicy(layout: Layout) {
  return layout.policies === undefined ? undefined : compilePolicy(layout.policies);
}

/**
 * Swaps the live policy when the `policies` section changed. A broken section never gets here: the whole file is
 * rejected by `watchConfig` with a path-named error and the previous policy stays live.
 *
 * @param gate - the gate `/mcp`, `/hub` and the per-server paths share
 * @param change - what `watchConfig` reported
 * @param logger - where the swap is logged
 */
export function applyPolicyChange(gate: PolicyGate, change: ConfigChange, logger: Logger): void {
  if (JSON.stringify(change.previous.policies) === JSON.stringify(change.next.policies)) return;
  gate.set(layoutPolicy(change.next));
  const p = change.next.policies;
  logger.info(
    { rules: p?.rules?.length ?? 0, limits: p?.limits?.length ?? 0, default: p?.default ?? 'allow' },
    'policies reloaded',
  );
}

/**
 * Watches `mcp.json` and applies each valid change: the policy first ({@link applyPolicyChange}), then the servers
 * ({@link applyConfigChange}).
 *
 * @param configPath - the `mcp.json` path
 * @param targets - the shared policy gate, the supervisor, and the layout read at start (what changes are diffed to)
 * @param logger - where changes, rejections and failures go
 * @returns the watcher (`close()` it at shutdown)
 * @throws McpPipeError from `watchConfig` when the file cannot be watched
 */
export function watchLayout(
  configPath: string,
  targets: { gate: PolicyGate; supervisor: ReloadTarget; initial: Layout },
  logger: Logger,
): Promise<ConfigWatcher<Layout>> {
  const { gate, supervisor, initial } = targets;
  return watchConfig(
    configPath,
    async (change) => {
      applyPolicyChange(gate, change, logger);
      await applyConfigChange(supervisor, change, logger);
    },
    { initial, logger },
  );
}
