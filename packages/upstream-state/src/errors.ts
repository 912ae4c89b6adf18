import { McpPipeError } from '@mcppipe/errors';

/** The error codes `@mcppipe/upstream-state` throws (documented in docs/errors.md). */
export type UpstreamStateErrorCode = 'MCPP_STATE_INVALID_POLICY';

/**
 * The error for an invalid policy field or environment variable.
 *
 * @param field - the policy field or variable name
 * @param value - the rejected value
 * @param message - what is wrong, starting with the field
 * @returns a `MCPP_STATE_INVALID_POLICY` error with `data: { field, value }`
 */
export function invalidPolicy(
  field: string,
  value: unknown,
  message: string,
): McpPipeError<'MCPP_STATE_INVALID_POLICY'> {
  return new McpPipeError('MCPP_STATE_INVALID_POLICY', message, { data: { field, value } });
}
