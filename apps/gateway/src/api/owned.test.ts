import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { ApiCaller } from './caller.js';
import { ownedTunnel, type OwnedTunnelId } from './owned.js';

/** One route resolving `:id` through the helper; the caller comes from the `x-caller` header (as the hook sets it). */
async function app(known: Set<string>) {
  const seen: OwnedTunnelId[] = [];
  const a = Fastify();
  a.decorateRequest('apiCaller', undefined);
  a.addHook('onRequest', async (req) => {
    const h = req.headers['x-caller'];
    req.apiCaller =
      h === 'admin'
        ? { kind: 'admin' }
        : typeof h === 'string'
          ? ({ kind: 'account', account: h, via: 'key', keyId: 'k' } satisfies ApiCaller)
          : undefined;
  });
  a.get('/api/tunnels/:id/thing', async (req, reply) => {
    const t = ownedTunnel(req, reply, (t) => (seen.push(t), known.has(t.id) ? t : undefined));
    return t === undefined ? reply : { id: t.id };
  });
  await a.ready();
  const get = async (id: string, caller?: string) => {
    const res = await a.inject({
      url: `/api/tunnels/${encodeURIComponent(id)}/thing`,
      headers: caller === undefined ? {} : { 'x-caller': caller },
    });
    return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
  };
  return { get, seen, close: () => a.close() };
}

describe('ownedTunnel (the one "this caller\'s tunnel or 404")', () => {
  it('gives the owner its tunnel; another account, the admin, no caller and an unknown id get the same 404', async () => {
    const a = await app(new Set(['laptop--alice', 'my--box--alice', 'web--bob']));
    expect(await a.get('laptop--alice', 'alice')).toEqual({ status: 200, body: { id: 'laptop--alice' } });
    const notFound = (id: string) => ({
      status: 404,
      body: { error: 'not_found', message: `no tunnel ${JSON.stringify(id)}` },
    });
    expect(await a.get('laptop--alice', 'bob')).toEqual(notFound('laptop--alice'));
    expect(await a.get('web--bob', 'alice')).toEqual(notFound('web--bob'));
    expect(await a.get('laptop--alice', 'admin')).toEqual(notFound('laptop--alice'));
    expect(await a.get('laptop--alice')).toEqual(notFound('laptop--alice'));
    expect(await a.get('ghost--alice', 'alice')).toEqual(notFound('ghost--alice'));
    expect(await a.get('no-separator', 'alice')).toEqual(notFound('no-separator'));
    // a subdomain may itself hold "--": the caller's account picks the reading
    expect(await a.get('my--box--alice', 'alice')).toEqual({ status: 200, body: { id: 'my--box--alice' } });
    expect(a.seen).toEqual([
      { id: 'laptop--alice', subdomain: 'laptop', account: 'alice' },
      { id: 'ghost--alice', subdomain: 'ghost', account: 'alice' },
      { id: 'my--box--alice', subdomain: 'my--box', account: 'alice' },
    ]);
    await a.close();
  });
});
