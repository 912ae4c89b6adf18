/**
 * The gateway's settings: each flag and the environment variable it falls back to (pure). Values are merged
 * here, not in yargs, so an error can name what the user typed: the flag when it was given, else the variable.
 *
 * @module
 */
import type { RawGatewayOptions } from './options.js';

/** A setting of `RawGatewayOptions` that has a flag and a variable. */
export type SettingKey = Exclude<keyof RawGatewayOptions, 'names'>;

/** Each setting's flag and environment variable (the names of seed 001 where there was one). */
export const SETTINGS: Readonly<Record<SettingKey, { flag: string; env: string }>> = {
  config: { flag: '--config', env: 'MCPPIPE_CONFIG' },
  dataDir: { flag: '--data-dir', env: 'DATA_DIR' },
  publicUrl: { flag: '--public-url', env: 'PUBLIC_URL' },
  host: { flag: '--host', env: 'HOST' },
  port: { flag: '--port', env: 'PORT' },
  trustedProxies: { flag: '--trusted-proxies', env: 'TRUSTED_PROXIES' },
  bodyLimit: { flag: '--body-limit', env: 'MCP_BODY_LIMIT' },
  logFile: { flag: '--log-file', env: 'LOG_FILE' },
  logLevel: { flag: '--log-level', env: 'LOG_LEVEL' },
  rateLimit: { flag: '--rate-limit', env: 'RATE_LIMIT_PER_MINUTE' },
  clientRpm: { flag: '--client-rpm', env: 'CLIENT_REQUESTS_PER_MINUTE' },
  clientConcurrency: { flag: '--client-concurrency', env: 'CLIENT_CONCURRENCY' },
  allowedOrigins: { flag: '--allowed-origins', env: 'ALLOWED_ORIGINS' },
  tunnelZone: { flag: '--tunnel-zone', env: 'MCPPIPE_TUNNEL_ZONE' },
  redis: { flag: '--redis', env: 'MCPPIPE_REDIS_URL' },
  nodePort: { flag: '--node-port', env: 'MCPPIPE_NODE_PORT' },
  nodeUrl: { flag: '--node-url', env: 'MCPPIPE_NODE_URL' },
};

/** The value of a variable, or `undefined` when it is unset or empty. */
const read = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name] || undefined;

/**
 * The value `--help` shows as a flag's default: its variable's value, else `fallback`.
 *
 * @param key - the setting
 * @param env - the environment
 * @param fallback - the built-in default, if any
 * @returns yargs' `defaultDescription` (the value quoted), or `undefined` for none
 */
export function shownDefault(key: SettingKey, env: NodeJS.ProcessEnv, fallback?: string): string | undefined {
  const value = read(env, SETTINGS[key].env) ?? fallback;
  return value === undefined ? undefined : JSON.stringify(value);
}

/**
 * Merges the flags given with their environment fallbacks: a flag wins over its variable. `names` records,
 * for each value, what the user typed, so that a problem with it names the flag or the variable.
 *
 * @param flags - yargs' parsed flags (no defaults: `undefined` means not given)
 * @param env - the environment
 * @returns the raw options, with `names`
 * @example
 * ```ts
 * mergeSettings({ bodyLimit: 'lots' }, {}).names; // { bodyLimit: '--body-limit' }
 * mergeSettings({}, { MCP_BODY_LIMIT: 'lots' }).names; // { bodyLimit: 'MCP_BODY_LIMIT' }
 * ```
 */
export function mergeSettings(
  flags: Partial<Record<SettingKey, string | number | undefined>>,
  env: NodeJS.ProcessEnv,
): RawGatewayOptions {
  const raw: Record<string, string | number> = {};
  const names: Partial<Record<SettingKey, string>> = {};
  for (const [key, { flag, env: variable }] of Object.entries(SETTINGS) as [
    SettingKey,
    { flag: string; env: string },
  ][]) {
    const given = flags[key];
    const value = given ?? read(env, variable);
    if (value === undefined) continue;
    raw[key] = value;
    names[key] = given === undefined ? variable : flag;
  }
  return { ...(raw as RawGatewayOptions), names };
}
