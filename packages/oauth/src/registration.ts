import { oauthError } from './errors.js';
import { checkRedirectUri } from './redirectUri.js';
import { hashSecret, randomSecret } from './secrets.js';
import type { ClientAuthMethod, ClientRecord } from './state.js';

/** The RFC 7591 registration response (secrets appear here once and are never stored in clear). */
export interface ClientRegistrationResponse {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: number;
  redirect_uris: string[];
  token_endpoint_auth_method: ClientAuthMethod;
  grant_types: string[];
  response_types: string[];
  client_name?: string;
  client_uri?: string;
  software_id?: string;
  software_version?: string;
  application_type?: string;
}

const SUPPORTED_AUTH: readonly ClientAuthMethod[] = ['none', 'client_secret_post', 'client_secret_basic'];
const MAX_REDIRECT_URIS = 10;

function optionalText(body: Record<string, unknown>, key: string, max: number): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw oauthError('invalid_client_metadata', `${key} must be a string`);
  // Strip control and bidi-override characters: the name is shown on the approval page.
  // eslint-disable-next-line no-control-regex
  const clean = v.replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  if (clean.length > max)
    throw oauthError('invalid_client_metadata', `${key} is longer than ${max} characters`);
  return clean || undefined;
}

/**
 * Validates an RFC 7591 registration request and builds the client record to store plus the response.
 * An unsupported `token_endpoint_auth_method` is replaced by `client_secret_basic` (the response says so);
 * omitted `grant_types` become `authorization_code` + `refresh_token`.
 *
 * @param body - the parsed JSON body
 * @param allowedSchemes - private-use redirect schemes allowed
 * @param nowMs - the current time
 * @returns the record and the response
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` with `invalid_redirect_uri` or `invalid_client_metadata`
 */
export function buildClientRegistration(
  body: unknown,
  allowedSchemes: readonly string[],
  nowMs: number,
): { record: ClientRecord; response: ClientRegistrationResponse } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw oauthError('invalid_client_metadata', 'the body must be a JSON object');
  }
  const b = body as Record<string, unknown>;
  const uris = b['redirect_uris'];
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw oauthError(
      'invalid_redirect_uri',
      `redirect_uris must be an array of 1 to ${MAX_REDIRECT_URIS} URIs`,
    );
  }
  const redirectUris: string[] = [];
  for (const u of uris) {
    if (typeof u !== 'string') throw oauthError('invalid_redirect_uri', 'each redirect URI must be a string');
    const check = checkRedirectUri(u, allowedSchemes);
    if (!check.ok) throw oauthError('invalid_redirect_uri', `redirect URI refused: ${check.reason}`);
    if (!redirectUris.includes(u)) redirectUris.push(u);
  }

  const requestedAuth = b['token_endpoint_auth_method'];
  if (requestedAuth !== undefined && typeof requestedAuth !== 'string') {
    throw oauthError('invalid_client_metadata', 'token_endpoint_auth_method must be a string');
  }
  const authMethod: ClientAuthMethod = SUPPORTED_AUTH.includes(requestedAuth as ClientAuthMethod)
    ? (requestedAuth as ClientAuthMethod)
    : 'client_secret_basic';

  const grantTypes = stringList(b, 'grant_types', ['authorization_code', 'refresh_token']);
  if (
    !grantTypes.includes('authorization_code') ||
    grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')
  ) {
    throw oauthError(
      'invalid_client_metadata',
      'grant_types may only be authorization_code and refresh_token',
    );
  }
  const responseTypes = stringList(b, 'response_types', ['code']);
  if (responseTypes.length !== 1 || responseTypes[0] !== 'code') {
    throw oauthError('invalid_client_metadata', 'response_types must be ["code"]');
  }

  const issuedAt = Math.floor(nowMs / 1000);
  const clientId = randomSecret(16);
  const secret = authMethod === 'none' ? undefined : randomSecret(32);
  const meta = {
    client_name: optionalText(b, 'client_name', 200),
    client_uri: optionalText(b, 'client_uri', 2000),
    software_id: optionalText(b, 'software_id', 200),
    software_version: optionalText(b, 'software_version', 100),
    application_type: optionalText(b, 'application_type', 20),
  };
  const defined = Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined)) as typeof meta;
  const common = {
    client_id: clientId,
    client_id_issued_at: issuedAt,
    redirect_uris: redirectUris,
    token_endpoint_auth_method: authMethod,
    grant_types: grantTypes,
    response_types: responseTypes,
    ...defined,
  };
  const record: ClientRecord = secret ? { ...common, client_secret_hash: hashSecret(secret) } : { ...common };
  const response: ClientRegistrationResponse = secret
    ? { ...common, client_secret: secret, client_secret_expires_at: 0 }
    : { ...common };
  return { record, response };
}

function stringList(b: Record<string, unknown>, key: string, fallback: string[]): string[] {
  const v = b[key];
  if (v === undefined) return fallback;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string') || v.length > 10) {
    throw oauthError('invalid_client_metadata', `${key} must be an array of strings`);
  }
  return [...new Set(v)];
}
