/**
 * Issue 20 item 1: the OAuth state of two gateway nodes on one real redis-server (two providers, two stores,
 * separate data directories): clients, refresh-token families and revocations are shared, and the refresh-token
 * rotation is atomic across the nodes (G2's family rule).
 */
import { randomBytes } from 'node:crypto';
import { openRedisStore, type RedisStore } from '@mcppipe/store';
import {
  authorizeQuery,
  browserFlow,
  exchange,
  harnessPerTest,
  HUB,
  json,
  pkce,
  refresh,
  register,
  req,
  startRedis,
  tokensFor,
  waitFor,
  type RunningRedis,
} from '@mcppipe/test-utils';
import type { Harness as TestHarness } from '@mcppipe/test-utils';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthProviderOptions } from './options.js';
import { createOAuthProvider, type OAuthProvider } from './provider.js';
import type { FamilyRecord } from './state.js';

type Harness = TestHarness<OAuthProvider, OAuthProviderOptions>;

const h0 = harnessPerTest(createOAuthProvider);
let redis: RunningRedis;
const stores: RedisStore[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});
afterAll(async () => {
  await redis?.stop();
});

/** Two nodes on one Redis (a fresh key prefix per test), with one signing key as the gateway shares it. */
async function twoNodes(extra: Partial<OAuthProviderOptions> = {}): Promise<[Harness, Harness, RedisStore]> {
  const keyPrefix = `t${randomBytes(4).toString('hex')}:`;
  const node = async (): Promise<Harness> => {
    const store = await openRedisStore({ url: redis.url, keyPrefix });
    stores.push(store);
    return h0({ sharedStore: store, sharedKeys: store.collection<string>('signing'), ...extra });
  };
  const a = await node();
  const b = await node();
  return [a, b, stores.at(-1)!];
}

const familyOf = async (store: RedisStore, clientId: string): Promise<FamilyRecord> => {
  const all = await store.collection<FamilyRecord>('oauth-families').entries();
  const mine = all.map(([, f]) => f).filter((f) => f.clientId === clientId);
  expect(mine).toHaveLength(1);
  return mine[0]!;
};

const refused = (h: Harness, token: string) =>
  h.provider.verifyAccessToken(token, HUB).then(
    () => false,
    () => true,
  );

describe('issue 20: OAuth state across two nodes over Redis', () => {
  it('the same refresh token presented to node A and node B at once: exactly one gets new tokens, the other is refused and the family is revoked on both nodes (G2, no grace window)', async () => {
    const [a, b, store] = await twoNodes({ refreshGraceMs: 0 });
    for (let round = 0; round < 8; round++) {
      const t = await tokensFor(a);
      const [ra, rb] = await Promise.all([
        refresh(a, t.clientId, t.refresh),
        refresh(b, t.clientId, t.refresh),
      ]);
      const answers = [ra, rb];
      const wins = answers.filter((r) => r.status === 200);
      const losses = answers.filter((r) => r.status === 400);
      expect(wins).toHaveLength(1);
      expect(losses).toHaveLength(1);
      expect(json(losses[0]!)).toMatchObject({ error: 'invalid_grant' });
      const won = json(wins[0]!);
      expect(won['refresh_token']).toEqual(expect.any(String));
      // the family rule: the reuse revoked the whole family, the winner's new pair included, on both nodes
      expect((await familyOf(store, t.clientId)).status).toBe('revoked');
      for (const h of [a, b]) {
        expect(json(await refresh(h, t.clientId, won['refresh_token'] as string))).toMatchObject({
          error: 'invalid_grant',
        });
        await waitFor(() => refused(h, won['access_token'] as string), { timeoutMs: 2_000, intervalMs: 10 });
        expect(await refused(h, t.access)).toBe(true);
      }
    }
  }, 60_000);

  it('with the default grace window both nodes answer with the same successor: one rotation, the family stays active', async () => {
    const [a, b, store] = await twoNodes();
    const t = await tokensFor(a);
    const [ra, rb] = await Promise.all([
      refresh(a, t.clientId, t.refresh),
      refresh(b, t.clientId, t.refresh),
    ]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    const r1 = json(ra)['refresh_token'] as string;
    expect(json(rb)['refresh_token']).toBe(r1);
    expect(r1).not.toBe(t.refresh);
    const family = await familyOf(store, t.clientId);
    expect(family.status).toBe('active');
    // the successor rotates normally on the other node, and the new access token verifies on both
    const next = await refresh(b, t.clientId, r1);
    expect(next.status).toBe(200);
    for (const h of [a, b])
      await expect(
        h.provider.verifyAccessToken(json(next)['access_token'] as string, HUB),
      ).resolves.toMatchObject({ clientId: t.clientId });
  }, 30_000);

  it('a client registered on node A authorizes, exchanges its code and refreshes on node B; tokens of either node verify on the other', async () => {
    const [a, b] = await twoNodes();
    const clientId = (await register(a))['client_id'] as string;
    // the token endpoint of B knows the client at once (fetched on first use)
    expect(json(await refresh(b, clientId, 'x.y'))).toMatchObject({ error: 'invalid_grant' });
    // /authorize is synchronous: B knows the client from the `oauth` pub/sub message (milliseconds)
    const p = pkce();
    await waitFor(
      () => b.provider.endpoints.authorize(req({ query: authorizeQuery(clientId, p) })).status === 200,
      { timeoutMs: 2_000, intervalMs: 10 },
    );
    const url = await browserFlow(b, authorizeQuery(clientId, p));
    const issued = await exchange(b, {
      client_id: clientId,
      code: url.searchParams.get('code')!,
      code_verifier: p.verifier,
    });
    expect(issued.status).toBe(200);
    const onB = json(issued);
    await expect(a.provider.verifyAccessToken(onB['access_token'] as string, HUB)).resolves.toMatchObject({
      clientId,
    });
    // a refresh on A of the refresh token issued on B
    const onA = await refresh(a, clientId, onB['refresh_token'] as string);
    expect(onA.status).toBe(200);
    await expect(
      b.provider.verifyAccessToken(json(onA)['access_token'] as string, HUB),
    ).resolves.toMatchObject({ clientId });
  }, 30_000);

  it('an access token revoked on node A (RFC 7009) is refused by node B within a second', async () => {
    const [a, b] = await twoNodes();
    const t = await tokensFor(a);
    await expect(b.provider.verifyAccessToken(t.access, HUB)).resolves.toMatchObject({
      clientId: t.clientId,
    });
    const res = await a.provider.endpoints.revoke(req({ form: { token: t.access, client_id: t.clientId } }));
    expect(res.status).toBe(200);
    const revokedAt = Date.now();
    await waitFor(() => refused(b, t.access), { timeoutMs: 2_000, intervalMs: 5 });
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    // its family went with it: the refresh token is refused on B too
    expect(json(await refresh(b, t.clientId, t.refresh))).toMatchObject({ error: 'invalid_grant' });
  }, 30_000);
});
