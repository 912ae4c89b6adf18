// The dashboard's static serving (issue 19 item 1; DESIGN.md D1, D3) through the whole app: the SPA fallback, the
// cache policy, the CSP, no traversal, and the zone apex as an allowed Host on a loopback bind.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { DASHBOARD_CSP } from './dashboard.js';
import { normalizeResource } from '@mcppipe/oauth';
import type { UpstreamSnapshot } from '@mcppipe/supervisor';
import { FakeVerifier, TestRegistry } from '@mcppipe/test-utils';

const PUBLIC = 'http://127.0.0.1:4000';
const INDEX =
  '<!doctype html><title>dash</title><script type="module" src="/dashboard/assets/app-abc123.js"></script>';
let root: string;
let dir: string;
let app: FastifyInstance;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcppipe-dash-'));
  dir = join(root, 'build');
  await mkdir(join(dir, 'assets'), { recursive: true });
  await writeFile(join(dir, 'index.html'), INDEX);
  await writeFile(join(dir, 'assets', 'app-abc123.js'), 'console.log("dashboard")');
  await writeFile(join(root, 'mcppipe-dash-secret.txt'), 'not served');
  app = await buildApp({
    registry: new TestRegistry<UpstreamSnapshot>(),
    verifier: new FakeVerifier(normalizeResource),
    publicUrl: PUBLIC,
    dashboardDir: dir,
    tunnelZone: 'tunnel.test',
  });
});
afterAll(async () => {
  await app?.close();
  await rm(root, { recursive: true, force: true });
});

const get = (url: string, host = '127.0.0.1:4000') => app.inject({ method: 'GET', url, headers: { host } });

describe('GET /dashboard', () => {
  it('redirects the bare path to /dashboard/', async () => {
    const res = await get('/dashboard');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/dashboard/');
  });

  it('answers index.html with no-cache and a same-origin CSP', async () => {
    const res = await get('/dashboard/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    expect(String(res.headers['content-security-policy'])).toMatch(/^default-src 'self'/);
    expect(res.body).toBe(INDEX);
  });

  it('serves hashed assets for a year, immutable', async () => {
    const res = await get('/dashboard/assets/app-abc123.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe('console.log("dashboard")');
  });

  it('falls back to index.html for app routes, and 404s a missing asset', async () => {
    const deep = await get('/dashboard/t/laptop--alice/inspector');
    expect(deep.statusCode).toBe(200);
    expect(deep.body).toBe(INDEX);
    expect(deep.headers['cache-control']).toBe('no-cache');
    const missing = await get('/dashboard/assets/gone-000.js');
    expect(missing.statusCode).toBe(404);
  });

  it('every answer under /dashboard carries the CSP, nosniff and Referrer-Policy: 404s and refusals included', async () => {
    const answers = [
      await get('/dashboard'),
      await get('/dashboard/'),
      await get('/dashboard/assets/app-abc123.js'),
      await get('/dashboard/assets/gone-000.js'),
      await get('/dashboard/', 'evil.example:4000'),
      await app.inject({ method: 'POST', url: '/dashboard/', headers: { host: '127.0.0.1:4000' } }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([302, 200, 200, 404, 403, 404]);
    for (const res of answers) {
      expect(res.headers['content-security-policy'], res.raw.req.url).toBe(DASHBOARD_CSP);
      expect(res.headers['x-content-type-options'], res.raw.req.url).toBe('nosniff');
      expect(res.headers['referrer-policy'], res.raw.req.url).toBe('no-referrer');
    }
    // not the rest of the origin: an API 404 is not a dashboard answer
    expect((await get('/api/nothing')).headers['content-security-policy']).toBeUndefined();
  });

  it('never serves a file outside the build', async () => {
    for (const url of [
      '/dashboard/../mcppipe-dash-secret.txt',
      '/dashboard/%2e%2e/mcppipe-dash-secret.txt',
    ]) {
      const res = await get(url);
      expect(res.body).not.toContain('not served');
    }
  });

  it('is served on the tunnel zone apex too, while other Hosts stay refused on a loopback bind', async () => {
    const apex = await get('/dashboard/', 'tunnel.test:4000');
    expect(apex.statusCode).toBe(200);
    expect(apex.body).toBe(INDEX);
    const other = await get('/dashboard/', 'evil.example:4000');
    expect(other.statusCode).toBe(403);
  });
});
