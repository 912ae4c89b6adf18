import { MAX_CLIENTS } from './defaults.js';
import { oauthError } from './errors.js';
import type { OAuthContext } from './context.js';
import { buildClientRegistration, type ClientRegistrationResponse } from './registration.js';
import { hashSecret, safeEqual } from './secrets.js';
import type { ClientRecord } from './state.js';

/**
 * Registers a client (RFC 7591) and persists it before answering (in `state.json`, or in the shared store of many
 * nodes, S1, so every node accepts it).
 *
 * @param ctx - the context
 * @param body - the parsed JSON body
 * @returns the registration response (with the client secret, shown once)
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` (`invalid_redirect_uri`, `invalid_client_metadata`,
 *   `temporarily_unavailable`) or `MCPP_OAUTH_STATE_WRITE_FAILED`
 */
export async function registerClient(ctx: OAuthContext, body: unknown): Promise<ClientRegistrationResponse> {
  const { record, response } = buildClientRegistration(
    body,
    ctx.settings.allowedRedirectSchemes,
    ctx.clock(),
  );
  const { clients } = ctx.store.state;
  if (Object.keys(clients).length >= MAX_CLIENTS) {
    throw oauthError('temporarily_unavailable', 'too many registered clients; try again later', 503);
  }
  if (ctx.shared)
    await ctx.shared.putClient(record); // every node knows it (S1)
  else {
    clients[record.client_id] = record;
    try {
      await ctx.store.persist();
    } catch (err) {
      delete clients[record.client_id];
      throw err;
    }
  }
  ctx.logger.info(
    { clientId: record.client_id, clientName: record.client_name },
    'registered an OAuth client',
  );
  ctx.emit({ type: 'client_registered', clientId: record.client_id });
  return response;
}

/** Client credentials as presented at the token or revocation endpoint. */
export interface PresentedClient {
  /** From HTTP Basic (`client_secret_basic`). */
  basic?: { id: string; secret: string };
  /** From the form (`client_id`, and `client_secret` for `client_secret_post`). */
  formId?: string;
  formSecret?: string;
}

/**
 * Parses an `Authorization: Basic` header (RFC 6749 §2.3.1: both parts form-urlencoded).
 *
 * @param header - the header value
 * @returns the credentials, or undefined when the header is not Basic
 * @throws McpPipeError `invalid_client` when it is Basic but malformed
 */
export function parseBasicAuth(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw oauthError('invalid_client', 'malformed Basic credentials');
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw oauthError('invalid_client', 'malformed Basic credentials');
  }
}

/**
 * Authenticates the client of a token or revocation request. Synchronous (hash comparison only), so the
 * caller's checks and state changes stay atomic. Unknown clients get 401 `invalid_client`, which tells
 * clients such as Claude to register again (e.g. after the state file was reset).
 *
 * @param ctx - the context
 * @param presented - the credentials
 * @returns the client record
 * @throws McpPipeError `MCPP_OAUTH_PROTOCOL` `invalid_client` (401) or `invalid_request`
 */
export function authenticateClient(ctx: OAuthContext, presented: PresentedClient): ClientRecord {
  const { basic, formId, formSecret } = presented;
  if (basic && (formSecret !== undefined || (formId !== undefined && formId !== basic.id))) {
    throw oauthError('invalid_request', 'use one client authentication method');
  }
  const id = basic?.id ?? formId;
  if (!id) throw oauthError('invalid_client', 'client authentication failed');
  const client = Object.hasOwn(ctx.store.state.clients, id) ? ctx.store.state.clients[id] : undefined;
  if (!client) throw oauthError('invalid_client', 'unknown client; register again');
  const secret = basic?.secret ?? formSecret;
  if (client.token_endpoint_auth_method === 'none') {
    if (secret !== undefined && secret !== '')
      throw oauthError('invalid_client', 'this is a public client; do not send a secret');
    return client;
  }
  if (
    secret === undefined ||
    !client.client_secret_hash ||
    !safeEqual(hashSecret(secret), client.client_secret_hash)
  ) {
    throw oauthError('invalid_client', 'client authentication failed');
  }
  return client;
}

/**
 * The `client_id` a token or revocation request presents (HTTP Basic or the form), for fetching a client
 * registered on another node before {@link authenticateClient} runs.
 *
 * @param authorization - the `Authorization` header
 * @param formId - the form's `client_id`
 * @returns the id, or undefined
 * @throws McpPipeError `invalid_client` for malformed Basic credentials
 */
export function presentedClientId(
  authorization: string | undefined,
  formId: string | undefined,
): string | undefined {
  return parseBasicAuth(authorization)?.id ?? formId;
}

/**
 * Looks up a client by id without authenticating it (for `/authorize`).
 *
 * @param ctx - the context
 * @param id - the `client_id`
 * @returns the record, or undefined
 */
export function findClient(ctx: OAuthContext, id: string): ClientRecord | undefined {
  return Object.hasOwn(ctx.store.state.clients, id) ? ctx.store.state.clients[id] : undefined;
}
