/**
 * The dashboard's remaining gaps in a real browser (issue 19; DESIGN.md D2, E3, E4, T1): Settings' webhooks with
 * their delivery log and API keys (create, name, revoke), the Tools tab's `changed` marker from the tool pins, and
 * the caller of an OAuth exchange by its client's registered name. Same stack as dashboard.test.ts
 * (`dashboardSetup.ts`): the gateway process, a real `mcppipe up --tunnel` with stdio upstreams (one of them the
 * rug-pull fixture whose tool definition changes), real MCP clients, Debian's Chromium; screenshots under
 * test/e2e/.output/.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { fixturePath, ownerApproves, TestClientProvider, waitFor } from '@mcppipe/test-utils';
import { hasChromium } from '@mcppipe/test-utils/browser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node, shot, signIn, startDashboardStack, text } from './dashboardSetup.js';
import type { DashboardStack } from './dashboardSetup.js';
import { rpcHeaders } from './gatewayProcess.js';

const ALICE_PW = 'alice settings passphrase';
const TUNNEL = 'desk--alice';
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

let stack: DashboardStack;
let page: Page;
let hooks: Server;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const api = (path: string, init: RequestInit = {}) =>
  fetch(`${stack.gw.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${stack.keys['alice']!}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
  });

beforeAll(async () => {
  hooks = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      // answered after more than a second: a delivery's last attempt ends in a later second than it was created
      setTimeout(() => res.writeHead(204).end(), 1100);
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  if (!hasChromium()) return;
  stack = await startDashboardStack({
    accounts: [['alice', ALICE_PW]],
    subdomain: 'desk',
    upstreams: { probe: node(fixturePath('e2e-probe.mjs')), docs: node(fixturePath('evt-rug-pull.mjs')) },
    gatewayEnv: { MCPPIPE_WEBHOOKS_ALLOW_PRIVATE: '1' },
  });
  page = stack.page;
  await signIn(page, { base: stack.gw.url, account: 'alice', password: ALICE_PW });
}, 240_000);

afterAll(async () => {
  await stack?.close();
  await new Promise((r) => hooks?.close(r));
});

describe.skipIf(!hasChromium())('the dashboard: Settings and Tools gaps (issue 19)', () => {
  it('Settings: a webhook added in the page gets a tool.changed delivery, shown in its delivery log', async () => {
    const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/settings`);
    await page.locator('input[name=webhookUrl]').fill(hookUrl);
    await page.locator('input[name=webhookEvent][value="tool.changed"]').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = page.locator('[data-secret=webhook]');
    await secret.waitFor({ timeout: 30_000 });
    expect(await secret.textContent()).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const row = page.locator('.webhook', { hasText: hookUrl });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.textContent()).toContain('tool.changed');

    // the event: a tool's definition changes under the agent (the rug-pull fixture)
    const client = await stack.client();
    expect(text(await client.callTool({ name: 'docs__search', arguments: { q: 'x' } }))).toBe('found x');
    await client.callTool({ name: 'docs__rug', arguments: {} });
    await waitFor(() => received.some((r) => r.body.includes('"tool.changed"')), {
      timeoutMs: 30_000,
      message: 'the tool.changed delivery',
    });
    const delivered = JSON.parse(received.find((r) => r.body.includes('"tool.changed"'))!.body) as {
      id: string;
      data: { tunnel: string; upstream: string; tool: string };
    };
    expect(delivered.data).toMatchObject({ tunnel: TUNNEL, upstream: 'docs', tool: 'search' });
    expect(received[0]!.headers['webhook-id']).toEqual(expect.any(String));
    // the delivery log shows it without a reload (it refreshes while shown)
    const entry = row.locator('[data-delivery="tool.changed"]');
    await expect.poll(() => entry.getAttribute('data-status'), { timeout: 30_000 }).toBe('delivered');
    expect(await entry.textContent()).toMatch(/tool\.changed delivered ×1 204/);
    // the time shown is the one the log is sorted by (newest first): when the delivery was created
    const [logged] = (
      (await (await api(`/api/tunnels/${TUNNEL}/webhooks`)).json()) as { webhooks: { id: string }[] }
    ).webhooks;
    const { deliveries } = (await (
      await api(`/api/tunnels/${TUNNEL}/webhooks/${logged!.id}/deliveries`)
    ).json()) as { deliveries: { eventType: string; createdAt: string }[] };
    const createdAt = deliveries.find((d) => d.eventType === 'tool.changed')!.createdAt;
    const local = await page.evaluate(`new Date('${createdAt}').toLocaleTimeString([], { hour12: false })`);
    expect(await entry.textContent()).toMatch(new RegExp(`^${String(local)} tool\\.changed`));
    await shot(page, 'webhooks');
    // the secret was shown once: not after a reload
    await page.reload();
    await row.waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-secret=webhook]').count()).toBe(0);
  });

  it('Tools: the changed tool carries the pins’ changed marker; Accept in the page clears it', async () => {
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/tools`);
    const search = page.locator('.group[data-upstream=docs] tr[data-tool=docs__search]');
    await search.waitFor({ timeout: 30_000 });
    await expect.poll(() => search.locator('.tag').textContent(), { timeout: 30_000 }).toBe('changed');
    expect(await page.locator('tr[data-tool=docs__rug] .tag').count()).toBe(0);
    expect(await page.locator('tr[data-tool=probe__echo] .tag').count()).toBe(0);
    await shot(page, 'tools-changed');
    await search.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => search.locator('.tag').count(), { timeout: 30_000 }).toBe(0);
    const { tools } = (await (await api(`/api/tunnels/${TUNNEL}/stats`)).json()) as {
      tools: { name: string; changed: boolean }[];
    };
    expect(tools.filter((t) => t.changed)).toEqual([]);
  });

  it('Settings: an API key created in the page (shown once) opens the tunnel; revoked in the page, it is refused', async () => {
    await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/settings`);
    await page.locator('input[name=keyName]').fill('ci bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('[data-secret=key]');
    await shown.waitFor({ timeout: 30_000 });
    const key = (await shown.textContent())!;
    expect(key).toMatch(/^mcpp_[A-Za-z0-9_-]{43}$/);
    const row = page.locator('tr[data-name="ci bot"]');
    await row.waitFor({ timeout: 30_000 });
    expect(await row.textContent()).not.toContain(key); // listed by name and id, never the key
    const table = page.locator('[aria-label="API keys"] table');
    expect(await table.locator('thead th').allTextContents()).toEqual(['Name', 'Id', 'Created', '']);
    expect(await row.locator('td').nth(2).textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const withKey = await stack.client(key);
    expect(text(await withKey.callTool({ name: 'probe__echo', arguments: { text: 'by ci bot' } }))).toBe(
      'by ci bot',
    );
    // the exchange names the key
    const { exchanges } = (await (
      await api(`/api/tunnels/${TUNNEL}/exchanges?caller=${encodeURIComponent('ci bot')}`)
    ).json()) as { exchanges: { caller: string; name: string | null }[] };
    expect(exchanges.map((x) => x.name)).toContain('probe__echo');
    await shot(page, 'keys');
    // Revoke asks first: Cancel keeps the key
    await page.getByRole('button', { name: 'Revoke ci bot' }).click();
    await row.getByRole('button', { name: 'Cancel' }).click();
    expect(await (await api('/api/keys')).text()).toContain('"ci bot"');
    await page.getByRole('button', { name: 'Revoke ci bot' }).click();
    expect(await row.textContent()).toContain('tunnels connected with it close');
    await row.getByRole('button', { name: 'Confirm revoke' }).click();
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(0);
    const refused = await fetch(`${stack.gw.url}/t/${TUNNEL}/mcp`, {
      method: 'POST',
      headers: rpcHeaders(key),
      body: LIST,
    });
    expect(refused.status).toBe(401);
    await expect(withKey.callTool({ name: 'probe__echo', arguments: { text: 'again' } })).rejects.toThrow();
    // the tunnel's own key still works
    expect(
      text(await (await stack.client()).callTool({ name: 'probe__echo', arguments: { text: 'ok' } })),
    ).toBe('ok');
  });

  it('an exchange made with the v2 SDK client’s OAuth flow records the client’s client_name as its caller', async () => {
    const put = (auth: string) =>
      api(`/api/tunnels/${TUNNEL}/settings`, { method: 'PUT', body: JSON.stringify({ auth }) });
    expect((await put('oauth')).status).toBe(200);
    try {
      const url = new URL(`${stack.gw.url}/t/${TUNNEL}/mcp`);
      const provider = new TestClientProvider();
      const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
      await expect(new Client({ name: 'oauth-caller', version: '1' }).connect(first)).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
      const callback = await ownerApproves(provider.authorizationUrl!, ALICE_PW);
      await first.finishAuth(callback.searchParams);
      const client = new Client({ name: 'oauth-caller', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
      expect(text(await client.callTool({ name: 'probe__echo', arguments: { text: 'via oauth' } }))).toBe(
        'via oauth',
      );
      await client.close();
      const { exchanges } = (await (
        await api(`/api/tunnels/${TUNNEL}/exchanges?caller=sdk-flow-test`)
      ).json()) as { exchanges: { caller: string; method: string | null; name: string | null }[] };
      expect(exchanges.find((x) => x.name === 'probe__echo')).toMatchObject({
        caller: 'sdk-flow-test',
        method: 'tools/call',
      });
      expect(exchanges.every((x) => x.caller === 'sdk-flow-test')).toBe(true);
      expect(exchanges.some((x) => x.caller === provider.info!.client_id)).toBe(false);
      // the Live tab shows the name in its caller column
      await page.goto(`${stack.gw.url}/dashboard/#/${TUNNEL}/live`);
      const row = page.locator('tr[data-exchange]', { hasText: 'probe__echo' }).first();
      await row.waitFor({ timeout: 30_000 });
      await expect
        .poll(() => row.locator('td').nth(1).textContent(), { timeout: 30_000 })
        .toBe('sdk-flow-test');
      await shot(page, 'live-oauth-caller');
    } finally {
      expect((await put('api-key')).status).toBe(200);
    }
  });
});
