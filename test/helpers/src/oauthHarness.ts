/**
 * `@mcppipe/oauth`'s test harness: a provider on a fresh temp dir with an injected clock, and the authorization-code
 * flow played against its framework-free endpoints. The caller passes `createOAuthProvider`: test-utils does not
 * import `@mcppipe/oauth` (its tests import test-utils); the shapes here are `@mcppipe/oauth`'s, typed structurally.
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { captureLogger } from './logger.js';
import type { TestLogger } from './logger.js';

type RawParams = Record<string, unknown>;

/** `@mcppipe/oauth`'s `OAuthHttpRequest`. */
export interface OAuthHttpRequest {
  query?: RawParams;
  form?: RawParams;
  json?: unknown;
  headers: Record<string, string | string[] | undefined>;
  ip: string;
}

/** `@mcppipe/oauth`'s `OAuthHttpResponse`. */
export interface OAuthHttpResponse {
  status: number;
  headers: Record<string, string>;
  cookies?: string[];
  body?: string;
}

type Endpoint = (req: OAuthHttpRequest) => OAuthHttpResponse;
type AsyncEndpoint = (req: OAuthHttpRequest) => Promise<OAuthHttpResponse>;

/** What the harness uses of an `OAuthProvider`. */
export interface OAuthProviderLike {
  endpoints: {
    register: AsyncEndpoint;
    authorize: Endpoint;
    login: AsyncEndpoint;
    consent: AsyncEndpoint;
    token: AsyncEndpoint;
  };
  close(): Promise<void>;
}

/** The `OAuthProviderOptions` fields the harness sets. */
export interface OAuthHarnessOptions {
  dataDir: string;
  publicUrl: string;
  resources: () => readonly string[];
  adminPassword?: string | undefined;
  clock?: (() => number) | undefined;
  logger?: TestLogger | undefined;
}

/** `createOAuthProvider` of `@mcppipe/oauth`. */
export type CreateOAuthProvider<P extends OAuthProviderLike, O extends OAuthHarnessOptions> = (
  options: O,
) => Promise<P>;

const randomSecret = (bytes: number): string => randomBytes(bytes).toString('base64url');
const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

export const ISSUER = 'https://gw.example';
export const HUB = `${ISSUER}/hub`;
export const MCP = `${ISSUER}/mcp`;
export const SERVER_X = `${ISSUER}/servers/x/mcp`;
export const SERVER_Y = `${ISSUER}/servers/y/mcp`;
export const PASSWORD = 'correct horse battery staple';
export const REDIRECT = 'https://client.example/callback';

/** A provider under test (`P`: `OAuthProvider`, `O`: `OAuthProviderOptions`). */
export interface Harness<
  P extends OAuthProviderLike = OAuthProviderLike,
  O extends OAuthHarnessOptions = OAuthHarnessOptions,
> {
  provider: P;
  dir: string;
  now: () => number;
  advance: (ms: number) => void;
  logger: ReturnType<typeof captureLogger>;
  options: O;
}

/**
 * A provider on a fresh temp dir with an injected clock (2026-11-30T12:00Z, moved by `advance`).
 *
 * @param create - `createOAuthProvider` of `@mcppipe/oauth`
 */
export async function harness<P extends OAuthProviderLike, O extends OAuthHarnessOptions>(
  create: CreateOAuthProvider<P, O>,
  overrides: Partial<O> = {},
): Promise<Harness<P, O>> {
  const dir = overrides.dataDir ?? (await mkdtemp(join(tmpdir(), 'mcppipe-oauth-')));
  let t = Date.UTC(2026, 10, 30, 12);
  const logger = captureLogger();
  const options = {
    dataDir: dir,
    publicUrl: ISSUER,
    resources: () => [HUB, MCP, SERVER_X, SERVER_Y],
    adminPassword: PASSWORD,
    clock: () => t,
    logger,
    ...overrides,
  } as unknown as O;
  const provider = await create(options);
  return { provider, dir, now: () => t, advance: (ms) => (t += ms), logger, options };
}

export function req(partial: Partial<OAuthHttpRequest> = {}): OAuthHttpRequest {
  return { headers: {}, ip: '203.0.113.7', ...partial };
}

export function json<T = Record<string, unknown>>(res: OAuthHttpResponse): T {
  return JSON.parse(res.body ?? 'null') as T;
}

/** Registers a public client (or a confidential one with `token_endpoint_auth_method`). */
export async function register(
  h: Harness,
  body: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const res = await h.provider.endpoints.register(
    req({
      json: { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'Test', ...body },
    }),
  );
  if (res.status !== 201) throw new Error(`register failed: ${res.body}`);
  return json(res);
}

function field(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m?.[1]) throw new Error(`no ${name} in page`);
  return m[1];
}

function cookieOf(res: OAuthHttpResponse): string | undefined {
  return res.cookies?.[0]?.split(';')[0];
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomSecret(32);
  return { verifier, challenge: s256(verifier) };
}

/** Authorize query for a client. */
export function authorizeQuery(
  clientId: string,
  p: Pkce,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
    state: 'st-123',
    ...extra,
  };
}

/**
 * Runs the browser part: authorize → login → authorize → approve; returns the redirect URL with the code.
 * `cookie` carries an existing session in and out.
 */
export async function browserFlow(
  h: Harness,
  query: Record<string, string>,
  jar: { cookie?: string } = {},
): Promise<URL> {
  const e = h.provider.endpoints;
  const headers = (): Record<string, string> => (jar.cookie ? { cookie: jar.cookie } : {});
  let res = e.authorize(req({ query, headers: headers() }));
  jar.cookie = cookieOf(res) ?? jar.cookie;
  if (res.status === 302) return new URL(res.headers['location'] ?? '');
  if (res.body?.includes('name="password"')) {
    res = await e.login(
      req({
        headers: { ...headers(), origin: ISSUER },
        form: {
          csrf_token: field(res.body, 'csrf_token'),
          request_id: field(res.body, 'request_id'),
          password: PASSWORD,
        },
      }),
    );
    if (res.status !== 303) throw new Error(`login failed: ${res.status}`);
    jar.cookie = cookieOf(res) ?? jar.cookie;
    const next = new URL(res.headers['location'] ?? '');
    res = e.authorize(req({ query: Object.fromEntries(next.searchParams), headers: headers() }));
    if (res.status === 302) return new URL(res.headers['location'] ?? '');
  }
  const body = res.body ?? '';
  res = await e.consent(
    req({
      headers: { ...headers(), origin: ISSUER },
      form: {
        csrf_token: field(body, 'csrf_token'),
        request_id: field(body, 'request_id'),
        decision: 'approve',
      },
    }),
  );
  if (res.status !== 303) throw new Error(`consent failed: ${res.status} ${res.body}`);
  return new URL(res.headers['location'] ?? '');
}

/** Redeems a code. */
export function exchange(h: Harness, form: Record<string, string>): Promise<OAuthHttpResponse> {
  return h.provider.endpoints.token(
    req({ form: { grant_type: 'authorization_code', redirect_uri: REDIRECT, ...form } }),
  );
}

/** Full flow to a token pair for a fresh public client. */
export async function tokensFor(
  h: Harness,
  extra: Record<string, string> = {},
): Promise<{ clientId: string; access: string; refresh: string; jar: { cookie?: string } }> {
  const client = await register(h);
  const clientId = client['client_id'] as string;
  const p = pkce();
  const jar = {};
  const url = await browserFlow(h, authorizeQuery(clientId, p, extra), jar);
  const res = await exchange(h, {
    client_id: clientId,
    code: url.searchParams.get('code') ?? '',
    code_verifier: p.verifier,
  });
  const body = json(res);
  if (res.status !== 200) throw new Error(`token failed: ${res.body}`);
  return { clientId, access: body['access_token'] as string, refresh: body['refresh_token'] as string, jar };
}

/** A refresh request: `token` is the refresh token, or a form with `refresh_token` and extra parameters. */
export function refresh(
  h: Harness,
  clientId: string,
  token: string | Record<string, string>,
): Promise<OAuthHttpResponse> {
  const form = typeof token === 'string' ? { refresh_token: token } : token;
  return h.provider.endpoints.token(
    req({ form: { grant_type: 'refresh_token', client_id: clientId, ...form } }),
  );
}

/**
 * A harness factory for one test file: every harness it makes is closed after each test.
 *
 * @param create - `createOAuthProvider` of `@mcppipe/oauth`
 * @returns `(overrides?) => Promise<Harness>`
 */
export function harnessPerTest<P extends OAuthProviderLike, O extends OAuthHarnessOptions>(
  create: CreateOAuthProvider<P, O>,
): (overrides?: Partial<O>) => Promise<Harness<P, O>> {
  const open: Harness<P, O>[] = [];
  afterEach(async () => {
    for (const h of open.splice(0)) await h.provider.close();
  });
  return async (overrides = {}) => {
    const h = await harness(create, overrides);
    open.push(h);
    return h;
  };
}
