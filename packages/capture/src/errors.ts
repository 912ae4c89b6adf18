import { McpPipeError } from '@mcppipe/errors';

/** The error codes `@mcppipe/capture` throws (documented in docs/errors.md). */
export type CaptureErrorCode = 'MCPP_CAPTURE_INVALID_OPTIONS' | 'MCPP_CAPTURE_INVALID_REQUEST';

/** @returns `MCPP_CAPTURE_INVALID_OPTIONS` for option `name` (D3 ring bounds, the body cap) with its `value` */
export function invalidOptionsError(
  name: string,
  value: unknown,
  rule: string,
): McpPipeError<'MCPP_CAPTURE_INVALID_OPTIONS', { name: string; value: unknown }> {
  return new McpPipeError(
    'MCPP_CAPTURE_INVALID_OPTIONS',
    `capture: ${name} must be ${rule}, got ${String(value)}`,
    {
      data: { name, value },
    },
  );
}

/** @returns `MCPP_CAPTURE_INVALID_REQUEST`: an edited replay request is not a JSON-RPC message (an object or batch) */
export function invalidRequestError(request: unknown): McpPipeError<'MCPP_CAPTURE_INVALID_REQUEST'> {
  const got = Array.isArray(request) ? 'an empty batch' : request === null ? 'null' : typeof request;
  return new McpPipeError(
    'MCPP_CAPTURE_INVALID_REQUEST',
    `the replayed request must be a JSON-RPC message (an object or a batch of them), got ${got}`,
  );
}
