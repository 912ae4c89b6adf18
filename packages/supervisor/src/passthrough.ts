import type { StandardSchemaV1 } from '@modelcontextprotocol/client';

/**
 * An identity Standard Schema: `client.request(req, passthroughSchema)` returns the result exactly as the upstream
 * sent it, unknown fields included. One shared instance; nothing is allocated per call.
 */
export const passthroughSchema: StandardSchemaV1<
  Record<string, unknown>,
  Record<string, unknown>
> = Object.freeze({
  '~standard': Object.freeze({
    version: 1 as const,
    vendor: 'mcppipe',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  }),
});
