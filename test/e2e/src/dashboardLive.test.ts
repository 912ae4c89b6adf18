/**
 * The dashboard's Live tab and header against a tunnel that comes and goes, in a real browser (DESIGN.md D2): Pause,
 * a filter change while paused and Resume (held rows filtered and shown once); a pause past the 500 rows held
 * (the rest counted and said); filters that hide every row (said, with a way to clear them, their choices from every
 * row seen); the header's connected state, Live's dot, Replay and the Upstreams section following the tunnel as it
 * goes offline and comes back, without a reload; a gateway that stops answering (said at the next refresh of the
 * tunnel list); the auth mode saved in Settings as `GET /api/tunnels` and the header report it (the header at once);
 * sign-out forgetting the account's tunnel route; a link to another account's tunnel. Same stack as dashboard.test.ts
 * (`dashboardSetup.ts`): the gateway process, a real `mcppipe up --tunnel` with stdio upstreams, real MCP clients,
 * Debian's Chromium.
 */
import { fixturePath } from '@mcppipe/test-utils';
import { hasChromium } from '@mcppipe/test-utils/browser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node, signIn, startDashboardStack } from './dashboardSetup.js';
import type { DashboardStack } from './dashboardSetup.js';
import { startTunnelCli } from './tunnelStack.js';

const ALICE_PW = 'alice live passphrase';
const BOB_PW = 'bob live passphrase';
const TUNNEL = 'den--alice';
const UPSTREAMS = { probe: node(fixturePath('e2e-probe.mjs')), faults: node(fixturePath('agg-faults.mjs')) };

let stack: DashboardStack;
let page: Page;

const rows = () => page.locator('tr[data-exchange]');
const ids = async () => Promise.all((await rows().all()).map((r) => r.getAttribute('data-exchange')));
const methods = () => rows().locator('td:nth-child(3)').allTextContents();
/** The tunnel's newest exchanges through the API (the page's session). */
const newest = async (query: string) => {
  const res = await page.request.get(`${stack.gw.url}/api/tunnels/${TUNNEL}/exchanges?${query}`);
  return ((await res.json()) as { exchanges: { id: string; method: string | null }[] }).exchanges;
};

beforeAll(async () => {
  if (!hasChromium()) return;
  stack = await startDashboardStack({
    accounts: [
      ['alice', ALICE_PW],
      ['bob', BOB_PW],
    ],
    subdomain: 'den',
    upstreams: UPSTREAMS,
  });
  page = stack.page;
  await signIn(page, { base: stack.gw.url, account: 'alice', password: ALICE_PW });
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

describe.skipIf(!hasChromium())('the dashboard Live tab and header', () => {
  it('Live: a filter change while paused keeps the held rows back; Resume shows those matching, each once', async () => {
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/live`);
    await page.locator('.dot.on').first().waitFor({ timeout: 30_000 });
    await (await stack.client()).callTool({ name: 'probe__echo', arguments: { text: 'before' } });
    await expect.poll(methods, { timeout: 30_000 }).toContain('tools/call');
    await page.getByRole('button', { name: 'Pause' }).click();
    const before = new Set(await ids());
    await (await stack.client()).callTool({ name: 'probe__echo', arguments: { text: 'held' } });
    const echo = (await newest('method=tools/call&limit=1'))[0]!.id;
    const arrived = (await newest('limit=100')).filter((x) => !before.has(x.id));
    expect(arrived.length).toBeGreaterThan(1);
    const resume = page.getByRole('button', { name: /^Resume/ });
    await expect.poll(() => resume.textContent(), { timeout: 30_000 }).toBe(`Resume (${arrived.length} new)`);
    await page.locator('select[name=method]').selectOption('tools/call');
    await expect.poll(methods, { timeout: 30_000 }).toEqual(['tools/call']);
    await expect.poll(() => resume.textContent(), { timeout: 30_000 }).toBe('Resume (1 new)');
    expect(await ids()).not.toContain(echo);
    await resume.click();
    await expect.poll(ids, { timeout: 30_000 }).toContain(echo);
    const shown = await ids();
    expect(shown[0]).toBe(echo);
    expect(new Set(shown).size).toBe(shown.length);
    expect(new Set(await methods())).toEqual(new Set(['tools/call']));
    await page.locator('select[name=method]').selectOption('');
  });

  it('Live: a pause past the 500 rows held says how many arrived, and after Resume that the older ones are not listed', async () => {
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/live`);
    await page.locator('.dot.on').first().waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Pause' }).click();
    const before = new Set((await newest('limit=1000')).map((x) => x.id));
    const client = await stack.client();
    for (let i = 0; i < 14; i++)
      await Promise.all(
        Array.from({ length: 40 }, (_, j) =>
          client.callTool({ name: 'probe__echo', arguments: { text: `burst ${i}.${j}` } }),
        ),
      );
    const arrived = (await newest('limit=1000')).filter((x) => !before.has(x.id)).length;
    expect(arrived).toBeGreaterThanOrEqual(560);
    const resume = page.getByRole('button', { name: /^Resume/ });
    const all = arrived.toLocaleString('en-US');
    await expect
      .poll(() => resume.textContent(), { timeout: 30_000 })
      .toBe(`Resume (500 newest of ${all} new)`);
    await resume.click();
    const note = page.locator('[data-note=not-listed]');
    await expect
      .poll(() => note.textContent(), { timeout: 30_000 })
      .toContain(
        `${(arrived - 500).toLocaleString('en-US')} older exchanges from the pause are not listed here`,
      );
    expect(await note.textContent()).toContain(`GET /api/tunnels/${TUNNEL}/exchanges`);
    expect(await rows().count()).toBe(500);
    // the next pause starts afresh
    await page.getByRole('button', { name: 'Pause' }).click();
    expect(await note.count()).toBe(0);
    await page.getByRole('button', { name: /^Resume/ }).click();
  });

  it('Live: filters that hide every row say so and clear; their choices come from every row seen', async () => {
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/settings`);
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/live`);
    await expect.poll(() => rows().count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.locator('select[name=upstream]').selectOption('probe');
    await page.locator('select[name=status]').selectOption('error');
    await page.getByText('No exchanges match these filters.').waitFor({ timeout: 30_000 });
    expect(await rows().count()).toBe(0);
    expect(await page.getByText('No exchanges yet').count()).toBe(0);
    const options = (name: string) => page.locator(`select[name=${name}] option`).allTextContents();
    expect(await options('method')).toContain('tools/call');
    expect(await options('caller')).toContain('laptop');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows().count(), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await page.locator('select[name=upstream]').inputValue()).toBe('');
    expect(await page.locator('select[name=status]').inputValue()).toBe('');
  });

  it('a gateway that stops answering is said at the next refresh, without claiming the tunnel online; then it recovers', async () => {
    const option = page.locator('select[name=tunnel] option').first();
    const facts = page.locator('main.pad > p.muted.small').first();
    // read without waiting (allTextContents): the banner must come within one refresh, not whenever it comes
    const banner = () => page.getByRole('alert').allTextContents();
    await expect.poll(() => option.textContent(), { timeout: 30_000 }).toContain('●');
    // every API call of the page fails on the network, as with the gateway process gone (connection refused)
    await page.route('**/api/**', (route) => route.abort('connectionrefused'));
    try {
      await expect
        .poll(banner, { timeout: 7_000 })
        .toEqual(['The gateway is not answering (retrying every 5 s).']);
      expect(await option.textContent()).not.toContain('●');
      expect(await facts.textContent()).toContain('state unknown');
      expect(await page.getByText('Failed to fetch').count()).toBe(0);
    } finally {
      await page.unroute('**/api/**');
    }
    await expect.poll(banner, { timeout: 7_000 }).toEqual([]);
    expect(await option.textContent()).toContain('●');
    expect(await facts.textContent()).not.toContain('state unknown');
  });

  it('GET /api/tunnels and the header report the auth mode saved in Settings, not the connect-time one', async () => {
    const api = (path: string, body?: unknown) =>
      fetch(`${stack.gw.url}/api${path}`, {
        method: body === undefined ? 'GET' : 'PUT',
        headers: { authorization: `Bearer ${stack.keys['alice']!}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    const listed = async () =>
      ((await (await api('/tunnels')).json()) as { tunnels: { id: string; auth: string }[] }).tunnels.find(
        (t) => t.id === TUNNEL,
      )?.auth;
    expect(await listed()).toBe('api-key');
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/settings`);
    await page.locator('select[name=auth]').selectOption('oauth');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: applies to the next request').waitFor({ timeout: 30_000 });
    expect(await listed()).toBe('oauth');
    // the header at once, not at the next refresh of the tunnel list (every 5 s)
    const facts = page.locator('main.pad > p.muted.small').first();
    await expect.poll(() => facts.textContent(), { timeout: 1_000 }).toContain('auth oauth');
    await page.reload();
    await expect.poll(() => facts.textContent(), { timeout: 30_000 }).toContain('auth oauth');
    // the saved mode removed again: the connect-time one is listed again
    expect((await api(`/tunnels/${TUNNEL}/settings`, { auth: null })).status).toBe(200);
    expect(await listed()).toBe('api-key');
  });

  it("the header, Live's dot and Replay follow the tunnel going offline and coming back, without a reload", async () => {
    const facts = page.locator('main.pad > p.muted.small').first();
    const option = page.locator('select[name=tunnel] option').first();
    const dot = page.getByRole('region', { name: 'Live' }).locator('.dot');
    const replay = page.getByRole('button', { name: 'Replay' });
    const exchange = (await newest('method=tools/call&limit=1'))[0]!.id;
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/inspector/${exchange}`);
    await expect.poll(() => replay.isEnabled(), { timeout: 30_000 }).toBe(true);
    expect(await facts.textContent()).not.toContain('offline');
    await page.evaluate('window.marker = 1');
    await stack.cli.stop();
    await expect.poll(() => facts.textContent(), { timeout: 30_000 }).toContain('· offline');
    expect(await option.textContent()).toContain('offline');
    await expect.poll(() => replay.isEnabled(), { timeout: 30_000 }).toBe(false);
    expect(await page.getByText('The tunnel is offline: replay needs it connected.').count()).toBe(1);
    // Settings: the Upstreams section stays, saying why it is empty
    const upstreams = page.locator('[data-section=upstreams]');
    await page.evaluate(`location.hash = '#/${TUNNEL}/settings'`);
    await expect
      .poll(() => upstreams.allTextContents(), { timeout: 30_000 })
      .toEqual([expect.stringContaining('The tunnel is offline: upstreams are shown when it reconnects.')]);
    expect(await upstreams.locator('tr[data-upstream]').count()).toBe(0);
    await page.evaluate(`location.hash = '#/${TUNNEL}/live'`);
    await expect.poll(() => dot.getAttribute('title'), { timeout: 30_000 }).toBe('tunnel offline');
    expect(await dot.getAttribute('class')).toBe('dot');
    const cli = await startTunnelCli({
      gateway: stack.gw.url,
      apiKey: stack.keys['alice']!,
      subdomain: 'den',
      auth: 'api-key',
      stdio: UPSTREAMS,
    });
    try {
      await expect.poll(() => facts.textContent(), { timeout: 30_000 }).not.toContain('offline');
      expect(await option.textContent()).toContain('●');
      await expect.poll(() => dot.getAttribute('class'), { timeout: 30_000 }).toBe('dot on');
      await page.evaluate(`location.hash = '#/${TUNNEL}/settings'`);
      await expect.poll(() => upstreams.locator('tr[data-upstream]').count(), { timeout: 30_000 }).toBe(2);
      expect(await upstreams.textContent()).not.toContain('The tunnel is offline');
      expect(await page.evaluate('window.marker')).toBe(1);
    } finally {
      await cli.stop();
    }
  });

  it("sign-out forgets the route of the account's tunnel: the next account starts from its own", async () => {
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/tools`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Account').waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).hash).toBe('');
    await page.getByLabel('Account').fill('bob');
    await page.getByLabel('Password').fill(BOB_PW);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 30_000 });
    await expect
      .poll(() => page.locator('select[name=tunnel] option').allTextContents(), { timeout: 30_000 })
      .toEqual(['no tunnels']);
    expect(page.url()).not.toContain(TUNNEL);
    // a new account gets its first API key (what `mcppipe up --tunnel` needs) right there, without a tunnel
    const keys = page.getByLabel('API keys');
    await keys.getByRole('textbox').fill('first laptop');
    await keys.getByRole('button', { name: 'Create key' }).click();
    const key = await keys.locator('[data-secret=key]').textContent({ timeout: 30_000 });
    expect(key).toMatch(/^mcpp_/);
    const listed = (await (
      await fetch(`${stack.gw.url}/api/keys`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { keys: { name: string }[] };
    expect(listed.keys.map((k) => k.name)).toContain('first laptop');
  });

  it('a session ended on the server (a logout elsewhere) brings the page back to sign-in, saying so', async () => {
    const { csrf } = (await (await page.request.get(`${stack.gw.url}/api/session`)).json()) as {
      csrf: string;
    };
    // the same cookie, from outside the page: the server forgets the session
    const out = await page.request.delete(`${stack.gw.url}/api/session`, {
      headers: { 'x-csrf-token': csrf },
    });
    expect(out.status()).toBe(204);
    // the next refresh of the tunnel list is answered 401: the page signs out by itself
    await page.getByRole('status').filter({ hasText: 'Your session ended: sign in again.' }).waitFor({
      timeout: 15_000,
    });
    await page.getByLabel('Account').fill('bob');
    await page.getByLabel('Password').fill(BOB_PW);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('status').count()).toBe(0);
  });

  it("a link to another account's tunnel says it is not in this account and opens the account's own", async () => {
    const own = await startTunnelCli({
      gateway: stack.gw.url,
      apiKey: stack.keys['bob']!,
      subdomain: 'nook',
      auth: 'api-key',
      stdio: { probe: UPSTREAMS.probe },
    });
    try {
      await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/live`);
      await page
        .getByRole('status')
        .filter({ hasText: `No tunnel ${TUNNEL} in this account.` })
        .waitFor({ timeout: 30_000 });
      await expect
        .poll(() => page.locator('select[name=tunnel]').inputValue(), { timeout: 30_000 })
        .toBe('nook--bob');
      expect(new URL(page.url()).hash).toBe('#/nook--bob/live');
      expect(await page.getByText('No tunnel yet').count()).toBe(0);
      await page.getByRole('region', { name: 'Live' }).waitFor({ timeout: 30_000 });
    } finally {
      await own.stop();
    }
  });
});
