/**
 * The error codes `@mcppipe/oauth` throws (the list itself lives in `@mcppipe/errors`):
 * - `MCPP_OAUTH_KEY_CORRUPT`: `jwt-key.pem` is not a valid Ed25519 private key (fail closed)
 * - `MCPP_OAUTH_NO_PASSWORD`: no admin password or hash, or the hash is not bcrypt
 * - `MCPP_OAUTH_INVALID_OPTIONS`: a factory option is invalid
 * - `MCPP_OAUTH_PROTOCOL`: an OAuth protocol error (`data.error`, `data.status`)
 * - `MCPP_OAUTH_INVALID_TOKEN`: an access token failed verification
 * - `MCPP_OAUTH_STATE_WRITE_FAILED`: `state.json` could not be written
 *
 * @module
 */
import { McpPipeError } from '@mcppipe/errors';

/** The RFC 6749 / 7591 / 8707 / 7009 error codes the endpoints answer with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'unsupported_token_type'
  | 'server_error'
  | 'temporarily_unavailable';

/** `data` of a `MCPP_OAUTH_PROTOCOL` error. */
export interface OAuthErrorData {
  /** The wire error code. */
  error: OAuthErrorCode;
  /** The HTTP status the endpoint answers with. */
  status: number;
}

/** `data` of a `MCPP_OAUTH_INVALID_TOKEN` error: why verification failed (for logs; never sent to clients). */
export interface InvalidTokenData {
  reason: string;
}

/**
 * Builds a `MCPP_OAUTH_PROTOCOL` error; its message becomes `error_description`, so it never contains secrets.
 *
 * @param error - the wire error code
 * @param description - a human-readable description, safe to send to the client
 * @param status - the HTTP status (400 unless given; 401 for `invalid_client`)
 * @returns the error, to throw
 */
export function oauthError(
  error: OAuthErrorCode,
  description: string,
  status = error === 'invalid_client' ? 401 : 400,
): McpPipeError<'MCPP_OAUTH_PROTOCOL', OAuthErrorData> {
  return new McpPipeError('MCPP_OAUTH_PROTOCOL', description, { data: { error, status } });
}

/**
 * Builds a `MCPP_OAUTH_INVALID_TOKEN` error.
 *
 * @param reason - why the token was refused (logged, not sent)
 * @param cause - the underlying error, if any
 * @returns the error, to throw
 */
export function invalidToken(
  reason: string,
  cause?: unknown,
): McpPipeError<'MCPP_OAUTH_INVALID_TOKEN', InvalidTokenData> {
  return new McpPipeError('MCPP_OAUTH_INVALID_TOKEN', `invalid access token: ${reason}`, {
    data: { reason },
    cause,
  });
}

/**
 * Builds a `MCPP_OAUTH_INVALID_OPTIONS` error.
 *
 * @param message - names the option and what is wrong
 * @returns the error, to throw
 */
export function invalidOptions(message: string): McpPipeError<'MCPP_OAUTH_INVALID_OPTIONS'> {
  return new McpPipeError('MCPP_OAUTH_INVALID_OPTIONS', message);
}
