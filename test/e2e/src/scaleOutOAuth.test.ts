/**
 * Issue 20 item 1 end to end: two `mcppipe-gateway` processes on one `redis-server`, both serving one public URL
 * (node A's address, as nodes behind one load balancer do; node B answers on its own port). OAuth clients,
 * refresh-token families and revocations are shared: a client registered on B is authorized on A, its tokens work
 * on both nodes, the same refresh token sent to both nodes at once is rotated once, and a revocation on B is
 * honoured by A within a second.
 */
import { createHash, randomBytes } from 'node:crypto';
import { waitFor } from '@mcppipe/test-utils';
import { approveAsOwner } from '@mcppipe/test-utils/oauth-flow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_PASSWORD, rpcHeaders } from './gatewayProcess.js';
import type { RunningGateway } from './gatewayProcess.js';
import { startNodePair } from './tunnelStack.js';
import type { NodePair } from './tunnelStack.js';

const REDIRECT_URI = 'http://127.0.0.1:53682/callback';
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

/** POST tools/list to `/hub` (bounded: 10 s). */
async function hubList(base: string, token: string): Promise<number> {
  const res = await fetch(`${base}/hub`, {
    method: 'POST',
    headers: rpcHeaders(token),
    body: LIST,
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  return res.status;
}

/** A token response, or an error answer (`error`). */
interface TokenBody {
  access_token: string;
  refresh_token: string;
  error?: string;
}

/** POST a form to the token or revocation endpoint (bounded: 10 s). */
async function postForm(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; body: TokenBody }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as TokenBody };
}

describe('two gateway nodes sharing one Redis: OAuth state (S1, G2)', () => {
  let pair: NodePair;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    pair = await startNodePair({ name: 'scale-oauth', tunnels: false, publicUrl: 'a' });
    ({ a, b } = pair);
  }, 180_000);

  afterAll(async () => {
    const codes = await pair?.close();
    expect(codes, `${a?.stderr()}\n${b?.stderr()}`).toEqual([0, 0]);
  });

  it('a client registered on node B is authorized on node A; its tokens work on both nodes; the same refresh token sent to both at once is rotated once; a revocation on B is refused by A within a second', async () => {
    const resource = `${a.url}/hub`; // the one public URL
    const reg = await fetch(`${b.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'two-node agent',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      }),
    });
    expect(reg.status).toBe(201);
    const clientId = ((await reg.json()) as { client_id: string }).client_id;

    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${a.url}/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource,
      state: 's1',
    }))
      authorize.searchParams.set(k, v);
    // node A learns of the registration from the `oauth` pub/sub message (milliseconds)
    await waitFor(async () => (await fetch(authorize, { redirect: 'manual' })).status === 200, {
      timeoutMs: 5_000,
      intervalMs: 50,
      message: 'node A knows the client registered on node B',
    });
    const code = (await approveAsOwner(authorize, OWNER_PASSWORD)).searchParams.get('code');
    expect(code).toBeTruthy();
    const issued = await postForm(`${a.url}/token`, {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
      resource,
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const first = issued.body;
    expect(await hubList(b.url, first.access_token)).toBe(200);

    // the same refresh token to both nodes at once: one rotation (both answers carry the one successor,
    // G2's grace rule for the immediate predecessor), never two successors
    const refreshForm = {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: first.refresh_token,
    };
    const [viaA, viaB] = await Promise.all([
      postForm(`${a.url}/token`, refreshForm),
      postForm(`${b.url}/token`, refreshForm),
    ]);
    expect([viaA.status, viaB.status]).toEqual([200, 200]);
    expect(viaA.body.refresh_token).toBe(viaB.body.refresh_token);
    expect(viaA.body.refresh_token).not.toBe(first.refresh_token);
    expect(await hubList(a.url, viaB.body.access_token)).toBe(200);
    expect(await hubList(b.url, viaA.body.access_token)).toBe(200);

    // revoked on B (RFC 7009): A refuses the access token within a second
    const revoked = await postForm(`${b.url}/revoke`, { token: viaA.body.access_token, client_id: clientId });
    expect(revoked.status).toBe(200);
    const start = Date.now();
    await waitFor(async () => (await hubList(a.url, viaA.body.access_token)) === 401, {
      timeoutMs: 5_000,
      intervalMs: 20,
      message: 'node A refuses the token revoked on node B',
    });
    // within a second on a quiet machine; the margin absorbs a loaded one (each probe is a full /hub request)
    expect(Date.now() - start).toBeLessThan(3_000);
    // its family went with it, on both nodes
    expect(
      (await postForm(`${a.url}/token`, { ...refreshForm, refresh_token: viaA.body.refresh_token })).body,
    ).toMatchObject({ error: 'invalid_grant' });
  }, 60_000);
});
