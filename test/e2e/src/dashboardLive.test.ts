/**
 * The dashboard's Live tab and header against a tunnel that comes and goes, in a real browser (DESIGN.md D2): Pause,
 * a filter change while paused and Resume (held rows filtered and shown once). Same stack as dashboard.test.ts
 * (`dashboardSetup.ts`): the gateway process, a real `mcppipe up --tunnel` with stdio upstreams, real MCP clients,
 * Debian's Chromium.
 */
import { fixturePath } from '@mcppipe/test-utils';
import { hasChromium } from '@mcppipe/test-utils/browser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node, signIn, startDashboardStack } from './dashboardSetup.js';
import type { DashboardStack } from './dashboardSetup.js';

const ALICE_PW = 'alice live passphrase';
const TUNNEL = 'den--alice';

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
    accounts: [['alice', ALICE_PW]],
    subdomain: 'den',
    upstreams: { probe: node(fixturePath('e2e-probe.mjs')), faults: node(fixturePath('agg-faults.mjs')) },
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
});
