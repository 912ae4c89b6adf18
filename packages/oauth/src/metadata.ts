import { SUPPORTED_SCOPES } from './defaults.js';

/** RFC 8414 authorization-server metadata, as mcppipe serves it. */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  revocation_endpoint: string;
  jwks_uri: string;
  scopes_supported: string[];
  response_types_supported: ['code'];
  response_modes_supported: ['query'];
  grant_types_supported: ['authorization_code', 'refresh_token'];
  token_endpoint_auth_methods_supported: string[];
  revocation_endpoint_auth_methods_supported: string[];
  code_challenge_methods_supported: ['S256'];
  authorization_response_iss_parameter_supported: true;
  client_id_metadata_document_supported: false;
}

/** RFC 9728 protected-resource metadata, as mcppipe serves it. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: ['header'];
  resource_name: string;
}

/** The endpoint paths, relative to the issuer (the gateway mounts its routes at these). */
export const OAUTH_PATHS = {
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
  jwks: '/.well-known/jwks.json',
  protectedResourcePrefix: '/.well-known/oauth-protected-resource',
  authorize: '/authorize',
  login: '/authorize/login',
  consent: '/authorize/consent',
  token: '/token',
  register: '/register',
  revoke: '/revoke',
} as const;

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];

/**
 * Builds the RFC 8414 metadata document. Every URL is built from the issuer (the configured public URL),
 * never from request headers.
 *
 * @param issuer - the issuer, e.g. `https://gw.example` (no trailing slash)
 * @returns the document
 * @example
 * ```ts
 * authorizationServerMetadata('https://gw.example').token_endpoint; // 'https://gw.example/token'
 * ```
 */
export function authorizationServerMetadata(issuer: string): AuthorizationServerMetadata {
  return {
    issuer,
    authorization_endpoint: `${issuer}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${issuer}${OAUTH_PATHS.token}`,
    registration_endpoint: `${issuer}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${issuer}${OAUTH_PATHS.revoke}`,
    jwks_uri: `${issuer}${OAUTH_PATHS.jwks}`,
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: false,
  };
}

/**
 * Builds the RFC 9728 metadata of one protected resource. `resource` is the endpoint URL byte for byte.
 *
 * @param resourceUrl - the endpoint URL (e.g. `https://gw.example/hub`)
 * @param issuer - the authorization server
 * @returns the document
 * @example
 * ```ts
 * protectedResourceMetadata('https://gw.example/hub', 'https://gw.example').authorization_servers; // ['https://gw.example']
 * ```
 */
export function protectedResourceMetadata(resourceUrl: string, issuer: string): ProtectedResourceMetadata {
  return {
    resource: resourceUrl,
    authorization_servers: [issuer],
    scopes_supported: [...SUPPORTED_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'mcppipe gateway',
  };
}
