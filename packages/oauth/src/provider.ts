import { mkdir } from 'node:fs/promises';
import type { JWK } from 'jose';
import type { AuthInfo } from './accessToken.js';
import { handleAuthorize, handleConsent, handleLogin, type AuthorizeDeps } from './authorizeFlow.js';
import { BrowserState } from './browserState.js';
import { presentedClientId, registerClient } from './clients.js';
import { CodeStore } from './codes.js';
import type { OAuthContext } from './context.js';
import type { GraceCache } from './families.js';
import {
  header,
  jsonResponse,
  NO_STORE,
  oauthErrorResponse,
  type OAuthHttpRequest,
  type OAuthHttpResponse,
} from './http.js';
import { safeEmitter } from './events.js';
import { loadOrCreateSharedSigningKey, loadOrCreateSigningKey } from './keys.js';
import { silentLogger } from './logger.js';
import { LoginThrottle } from './loginThrottle.js';
import {
  authorizationServerMetadata,
  protectedResourceMetadata,
  type AuthorizationServerMetadata,
  type ProtectedResourceMetadata,
} from './metadata.js';
import { resolveOptions, type OAuthProviderOptions } from './options.js';
import { createPasswordVerifier } from './password.js';
import { normalizeResource } from './resource.js';
import { pruneState } from './state.js';
import { SharedOAuthState } from './sharedState.js';
import { StateStore } from './stateStore.js';
import { handleRevocation, handleTokenRequest } from './tokenEndpoint.js';
import { VerifiedTokenCache } from './tokenCache.js';
import {
  ACCESS_TOKEN_SKEW_SEC,
  MIN_RECOMMENDED_PASSWORD_LENGTH,
  PRUNE_INTERVAL_MS,
  UNUSED_CLIENT_TTL_MS,
} from './defaults.js';
import {
  authenticateBearer,
  bearerTarget,
  checkAccessToken,
  createVerifierState,
  verifyAccessToken,
  type BearerResult,
  type BearerTarget,
  type TokenCheck,
} from './verify.js';

/** The HTTP endpoints, framework-free: a web framework adapter maps its requests onto these. */
export interface OAuthEndpoints {
  /** `GET /.well-known/oauth-authorization-server` (and the `openid-configuration` alias). */
  authorizationServerMetadata(): OAuthHttpResponse;
  /** `GET /.well-known/oauth-protected-resource<path>`: 404 unless `<issuer><path>` is a resource. */
  protectedResourceMetadata(path: string): OAuthHttpResponse;
  /** `GET /.well-known/jwks.json`. */
  jwks(): OAuthHttpResponse;
  /** `GET /authorize`. */
  authorize(req: OAuthHttpRequest): OAuthHttpResponse;
  /** `POST /authorize/login`. */
  login(req: OAuthHttpRequest): Promise<OAuthHttpResponse>;
  /** `POST /authorize/consent`. */
  consent(req: OAuthHttpRequest): Promise<OAuthHttpResponse>;
  /** `POST /register` (JSON body). */
  register(req: OAuthHttpRequest): Promise<OAuthHttpResponse>;
  /** `POST /token` (form body). */
  token(req: OAuthHttpRequest): Promise<OAuthHttpResponse>;
  /** `POST /revoke` (form body). */
  revoke(req: OAuthHttpRequest): Promise<OAuthHttpResponse>;
}

/** The authorization server, created once per gateway process by {@link createOAuthProvider}. */
export interface OAuthProvider extends AsyncDisposable {
  /** The issuer (the public origin). */
  readonly issuer: string;
  /** See `verifyAccessToken` in the README: EdDSA JWT + in-memory revocation checks; no disk, no network. */
  verifyAccessToken(token: string, expectedResource: string): Promise<AuthInfo>;
  /**
   * The same checks as {@link OAuthProvider.verifyAccessToken}, answering a refusal as `{ ok: false, reason }`
   * instead of throwing (no error object is built on the rejection path). `reason` is for logs only.
   */
  checkAccessToken(token: string, expectedResource: string): Promise<TokenCheck>;
  /**
   * The one bearer check (`authenticateBearer` with this provider's `checkAccessToken`): reads `Authorization:
   * Bearer`, checks the token for the resource, and gives the 401 challenge on failure. Pass a `bearerTarget`
   * built once per resource (a hot path does), or a resource URL (its challenges then name `scope="mcp"` and carry
   * no `error_description`; built per call).
   */
  authenticateBearer(
    authorization: string | undefined,
    resource: string | BearerTarget,
  ): Promise<BearerResult>;
  authorizationServerMetadata(): AuthorizationServerMetadata;
  /** The RFC 9728 metadata of a resource, or undefined when it is not one of the gateway's resources. */
  protectedResourceMetadata(resourceUrl: string): ProtectedResourceMetadata | undefined;
  /** The public JWKS (for external verifiers). */
  jwks(): { keys: JWK[] };
  readonly endpoints: OAuthEndpoints;
  /** Stops the pruning timer (and following the shared store) and waits for pending state writes. */
  close(): Promise<void>;
}

function formClientId(req: OAuthHttpRequest): string | undefined {
  const id = req.form?.['client_id'];
  return typeof id === 'string' ? id : undefined;
}

/**
 * Creates the OAuth 2.1 authorization server: loads or creates `jwt-key.pem`, loads `state.json` (moving a
 * corrupt one aside), and validates every option up front. With `sharedStore` (Redis, many nodes, S1) it also
 * loads the shared clients, families and revocations and follows other nodes' changes until `close()`.
 *
 * @param options - see {@link OAuthProviderOptions}
 * @returns the provider
 * @throws McpPipeError `MCPP_OAUTH_INVALID_OPTIONS`, `MCPP_OAUTH_NO_PASSWORD`, `MCPP_OAUTH_KEY_CORRUPT`;
 *   `MCPP_STORE_UNAVAILABLE` when the shared store cannot be read at start
 * @example Creating a provider
 * ```ts
 * const provider = await createOAuthProvider({
 *   dataDir: '/data',
 *   publicUrl: 'https://gw.example',
 *   resources: () => ['https://gw.example/hub', 'https://gw.example/mcp'],
 *   adminPasswordHash: process.env.MCPPIPE_ADMIN_PASSWORD_HASH,
 * });
 * const auth = await provider.verifyAccessToken(token, 'https://gw.example/hub');
 * ```
 */
export async function createOAuthProvider(options: OAuthProviderOptions): Promise<OAuthProvider> {
  const { issuer, settings } = resolveOptions(options);
  const verifyPassword = createPasswordVerifier({
    password: options.adminPassword,
    passwordHash: options.adminPasswordHash,
  });
  const clock = options.clock ?? Date.now;
  const logger = options.logger ?? silentLogger;
  if (options.adminPassword && [...options.adminPassword].length < MIN_RECOMMENDED_PASSWORD_LENGTH) {
    logger.warn(
      { minLength: MIN_RECOMMENDED_PASSWORD_LENGTH },
      `MCPPIPE_ADMIN_PASSWORD is shorter than ${MIN_RECOMMENDED_PASSWORD_LENGTH} characters: anyone who can reach /authorize may guess it; use a long passphrase or MCPPIPE_ADMIN_PASSWORD_HASH`,
    );
  }
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const key = options.sharedKeys
    ? await loadOrCreateSharedSigningKey(options.sharedKeys, logger)
    : await loadOrCreateSigningKey(options.dataDir, logger);
  const emit = safeEmitter(options.onEvent);
  const store = await StateStore.open({
    dataDir: options.dataDir,
    logger,
    clock,
    onCorrupt: (movedTo, reason) => emit({ type: 'state_corrupt', movedTo, reason }),
  });
  // S1: with a Redis store, clients, families and revocations are shared; state.json keeps the approvals
  const shared =
    options.sharedStore?.kind === 'redis'
      ? new SharedOAuthState(options.sharedStore, store.state, logger)
      : undefined;
  if (shared) {
    await shared.load();
    await shared.watch();
  }
  const ctx: OAuthContext = {
    issuer,
    store,
    shared,
    key,
    clock,
    logger,
    settings,
    emit,
    resources: () => new Set(options.resources().flatMap((r) => normalizeResource(r) ?? [])),
  };
  const verifier = createVerifierState(
    ctx,
    new VerifiedTokenCache({
      maxEntries: settings.verifiedTokenCacheSize,
      ttlMs: settings.verifiedTokenCacheTtlMs,
      skewSec: ACCESS_TOKEN_SKEW_SEC,
    }),
  );
  const deps: AuthorizeDeps = {
    codes: new CodeStore(clock, settings.codeTtlSec * 1000),
    browser: new BrowserState(clock),
    throttle: new LoginThrottle(clock),
    verifyPassword,
    owners: options.owners,
  };
  const grace: GraceCache = new Map();
  const prune = (): void => {
    if (pruneState(store.state, clock(), UNUSED_CLIENT_TTL_MS) > 0)
      void store.persist().catch(() => undefined);
  };
  prune();
  const timer = setInterval(prune, PRUNE_INTERVAL_MS);
  timer.unref();

  const asMeta = authorizationServerMetadata(issuer);
  const prm = (resourceUrl: string): ProtectedResourceMetadata | undefined => {
    const r = normalizeResource(resourceUrl);
    return r !== undefined && ctx.resources().has(r) ? protectedResourceMetadata(r, issuer) : undefined;
  };
  const metaHeaders = { 'cache-control': 'public, max-age=300' };
  // many nodes: a client registered on another node a moment ago is fetched before it is authenticated
  const knowClient = async (req: OAuthHttpRequest): Promise<void> => {
    if (!shared) return;
    const id = presentedClientId(header(req, 'authorization'), formClientId(req));
    if (id) await shared.client(id);
  };
  const guarded = async (
    run: () => Promise<OAuthHttpResponse>,
    req: OAuthHttpRequest,
  ): Promise<OAuthHttpResponse> => {
    try {
      if (req.form) await knowClient(req);
      return await run();
    } catch (err) {
      return oauthErrorResponse(err, /^basic /i.test(header(req, 'authorization') ?? ''));
    }
  };
  const endpoints: OAuthEndpoints = {
    authorizationServerMetadata: () => jsonResponse(200, asMeta, metaHeaders),
    protectedResourceMetadata: (path) => {
      const doc = path.startsWith('/') ? prm(`${issuer}${path}`) : undefined;
      return doc ? jsonResponse(200, doc, metaHeaders) : jsonResponse(404, { error: 'not_found' });
    },
    jwks: () => jsonResponse(200, { keys: [key.publicJwk] }, metaHeaders),
    authorize: (req) => handleAuthorize(ctx, deps, req),
    login: (req) => handleLogin(ctx, deps, req),
    consent: (req) => handleConsent(ctx, deps, req),
    register: (req) =>
      guarded(async () => jsonResponse(201, await registerClient(ctx, req.json), NO_STORE), req),
    token: (req) =>
      guarded(
        async () =>
          jsonResponse(
            200,
            await handleTokenRequest(
              ctx,
              { codes: deps.codes, grace },
              { form: req.form, authorization: header(req, 'authorization') },
            ),
            NO_STORE,
          ),
        req,
      ),
    revoke: (req) =>
      guarded(async () => {
        await handleRevocation(ctx, { form: req.form, authorization: header(req, 'authorization') });
        return { status: 200, headers: { ...NO_STORE } };
      }, req),
  };
  const close = async (): Promise<void> => {
    clearInterval(timer);
    shared?.stop();
    await store.flush();
  };
  const checker = {
    checkAccessToken: (token: string, expectedResource: string) =>
      checkAccessToken(verifier, token, expectedResource),
  };
  return {
    issuer,
    verifyAccessToken: (token, expectedResource) => verifyAccessToken(verifier, token, expectedResource),
    checkAccessToken: checker.checkAccessToken,
    authenticateBearer: (authorization, resource) =>
      authenticateBearer(
        checker,
        authorization,
        typeof resource === 'string'
          ? bearerTarget(resource, undefined, { scope: 'mcp', descriptions: false })
          : resource,
      ),
    authorizationServerMetadata: () => authorizationServerMetadata(issuer),
    protectedResourceMetadata: prm,
    jwks: () => ({ keys: [key.publicJwk] }),
    endpoints,
    close,
    [Symbol.asyncDispose]: close,
  };
}
