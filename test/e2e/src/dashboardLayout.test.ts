/**
 * The dashboard's look in a real browser (a new-user trial's findings): a page load logs no console error (the
 * favicon ships with the dashboard; the session is asked for without a 401), typed values in Settings are the text
 * colour while placeholders are lighter, the Tools tab shows its histogram percentiles as approximate, and at
 * 375 × 740 px no tab is wider than the screen (the header wraps, tables scroll inside their card, the Inspector
 * stacks Request above Response without breaking a JSON token). Same stack as dashboard.test.ts
 * (`dashboardSetup.ts`); screenshots under test/e2e/.output/.
 */
import { fixturePath } from '@mcppipe/test-utils';
import { hasChromium } from '@mcppipe/test-utils/browser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node, shot, signIn, startDashboardStack } from './dashboardSetup.js';
import type { DashboardStack } from './dashboardSetup.js';

const ALICE_PW = 'alice layout passphrase';
const TUNNEL = 'phone--alice';
const WORDS = 'the quick brown fox jumps over the lazy dog and keeps running past every field '.repeat(4);

let stack: DashboardStack;
let page: Page;
const errors: string[] = [];

// Scripts run in the page (strings: this project type-checks for Node, without the DOM library).
const COLOURS = `(() => {
  const box = document.querySelector('textarea[name=allow]');
  return {
    body: getComputedStyle(document.body).color,
    value: getComputedStyle(box).color,
    placeholder: getComputedStyle(box, '::placeholder').color,
    hint: box.placeholder,
  };
})()`;
/** Pairs of word characters in the JSON views that sit on different lines: a token broken across lines. */
const BROKEN_TOKENS = `(() => {
  const broken = [];
  const walk = document.createTreeWalker(document.querySelector('.split'), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const t = n.textContent;
    const top = (i) => { const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1); return r.getBoundingClientRect().top; };
    for (let i = 1; i < t.length; i++)
      if (/\\w/.test(t[i - 1]) && /\\w/.test(t[i]) && Math.abs(top(i) - top(i - 1)) > 2) broken.push(t.slice(Math.max(0, i - 8), i + 8));
  }
  return broken;
})()`;
const WIDTH = 'document.documentElement.scrollWidth';

/** A luminance-like brightness of `rgb(r, g, b)`, 0…255. */
const brightness = (rgb: string) => {
  const [r = 0, g = 0, b = 0] = (rgb.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  return 0.299 * r + 0.587 * g + 0.114 * b;
};

beforeAll(async () => {
  if (!hasChromium()) return;
  stack = await startDashboardStack({
    accounts: [['alice', ALICE_PW]],
    subdomain: 'phone',
    upstreams: { probe: node(fixturePath('e2e-probe.mjs')), faults: node(fixturePath('agg-faults.mjs')) },
  });
  page = stack.page;
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

describe.skipIf(!hasChromium())('the dashboard: colours, console and a narrow screen', () => {
  it('loading the page and signing in logs no console error: a shipped favicon, no 401 for the session', async () => {
    await signIn(page, { base: stack.gw.url, account: 'alice', password: ALICE_PW });
    await page
      .locator('select[name=tunnel] option', { hasText: TUNNEL })
      .waitFor({ state: 'attached', timeout: 30_000 });
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 30_000 });
    const icon = await page.locator('link[rel=icon]').getAttribute('href');
    expect(icon).toMatch(/^\/dashboard\/favicon\.svg$/);
    const res = await page.request.get(`${stack.gw.url}${icon!}`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toMatch(/^image\/svg\+xml/);
    expect(errors).toEqual([]);
  });

  it('Settings: a typed value is the text colour, a placeholder visibly lighter and prefixed "e.g. "', async () => {
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/settings`);
    const allow = page.locator('textarea[name=allow]');
    await allow.waitFor({ timeout: 30_000 });
    expect(await allow.inputValue()).toBe('');
    const c = (await page.evaluate(COLOURS)) as Record<string, string>;
    expect(c['hint']).toBe('e.g. 203.0.113.0/24');
    expect(c['value']).toBe(c['body']);
    expect(brightness(c['placeholder']!) - brightness(c['value']!)).toBeGreaterThan(80);
    await shot(page, 'settings-placeholder');
  });

  it('Tools: percentiles are shown as approximate', async () => {
    const client = await stack.client();
    for (const text of ['a', WORDS]) await client.callTool({ name: 'probe__echo', arguments: { text } });
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/tools`);
    const echo = page.locator('tr[data-tool=probe__echo]');
    await echo.waitFor({ timeout: 30_000 });
    for (const p of (await echo.locator('td').allTextContents()).slice(4, 7))
      expect(p).toMatch(/^≈\d+(\.\d)? m?s$/);
  });

  it('at 375 × 740 no tab is wider than the screen; the header wraps; the Inspector stacks its panes', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    const inView = async (name: string, box: { x: number; width: number } | null) => {
      expect(box, name).not.toBeNull();
      expect(box!.x, name).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, name).toBeLessThanOrEqual(375);
    };
    for (const tab of ['live', 'inspector', 'tools', 'settings']) {
      let url = `${stack.gw.url}/dashboard/#/${TUNNEL}/${tab}`;
      if (tab === 'inspector') {
        const res = await page.request.get(
          `${stack.gw.url}/api/tunnels/${TUNNEL}/exchanges?method=tools/call`,
        );
        const [x] = ((await res.json()) as { exchanges: { id: string }[] }).exchanges;
        url = `${url}/${x!.id}`;
      }
      await page.goto(url);
      const ready = {
        live: 'tr[data-exchange]',
        inspector: '.split .json',
        tools: 'tr[data-tool]',
        settings: 'tr[data-upstream]',
      }[tab]!;
      await page.locator(ready).first().waitFor({ timeout: 30_000 });
      expect(await page.evaluate(WIDTH), tab).toBeLessThanOrEqual(375);
      await inView(`${tab}: Sign out`, await page.getByRole('button', { name: 'Sign out' }).boundingBox());
      await inView(
        `${tab}: ↻`,
        await page.locator('header button[title="Reload the tunnel list"]').boundingBox(),
      );
      await shot(page, `narrow-${tab}`);
    }
    // the Inspector (an exchange with a long result): Response below Request, no JSON token broken
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/live`);
    await page.locator('tr[data-exchange]', { hasText: 'probe__echo' }).first().locator('a').click();
    await page.locator('.split .json').nth(1).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator('.split .json').nth(1).textContent()).toContain('lazy dog');
    const [request, response] = await page.locator('.split > div').all();
    const top = (await response!.boundingBox())!.y;
    const req = (await request!.boundingBox())!;
    expect(top).toBeGreaterThanOrEqual(req.y + req.height);
    expect(await page.evaluate(BROKEN_TOKENS)).toEqual([]);
    expect(await page.evaluate(WIDTH)).toBeLessThanOrEqual(375);
    await shot(page, 'narrow-inspector-long');
    expect(errors).toEqual([]);
  });
});
