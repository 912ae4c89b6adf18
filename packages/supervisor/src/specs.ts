import { McpPipeError } from '@mcppipe/errors';
import type { UpstreamSpec } from './types.js';

/** Validates the shape of one spec (names are validated by `@mcppipe/namespace` upstream of here). */
export function checkSpec(spec: UpstreamSpec): void {
  if (typeof spec?.name !== 'string' || spec.name === '')
    throw new TypeError('upstream: name must be a non-empty string');
  if (spec.transport === 'stdio') {
    if (typeof spec.command !== 'string' || spec.command.trim() === '') {
      throw new TypeError(`${spec.name}.command: must be a non-empty string`);
    }
  } else if (spec.transport === 'http') {
    if (typeof spec.url !== 'string' || spec.url === '')
      throw new TypeError(`${spec.name}.url: must be a URL`);
  } else {
    throw new TypeError(`${(spec as UpstreamSpec).name}.transport: must be "stdio" or "http"`);
  }
  if (spec.startTimeoutMs !== undefined && !(spec.startTimeoutMs > 0)) {
    throw new TypeError(`${spec.name}.startTimeoutMs: must be a positive number of ms`);
  }
}

/** The error for two upstreams with one name. */
export function duplicate(name: string): McpPipeError {
  return new McpPipeError(
    'MCPP_NS_DUPLICATE_NAME',
    `two upstreams are named "${name}"; names must be unique`,
    {
      data: { name },
    },
  );
}

/** A key-order-independent serialization, to tell a changed spec from an unchanged one. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
