/**
 * The dashboard's browser tests' setup (issue 19; DESIGN.md D1–D4): the gateway process with `--tunnel-zone`,
 * accounts and a key made with its own commands, a real tunnel (`mcppipe up --tunnel`, api-key auth, stdio
 * upstreams), Debian's Chromium driven by playwright-core, and the page steps every test repeats (sign in, a
 * screenshot under test/e2e/.output/).
 *
 * @module
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RunningCli } from '@mcppipe/test-utils';
import { launchChromium } from '@mcppipe/test-utils/browser';
import type { RunningChromium } from '@mcppipe/test-utils/browser';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { RunningGateway } from './gatewayProcess.js';
import { ZONE, startTunnelCli, startTunnelGateway } from './tunnelStack.js';

export { ZONE, node } from './tunnelStack.js';

/** Where screenshots go. */
export const OUTPUT = fileURLToPath(new URL('../.output/', import.meta.url));

/** The first text content of a tool result. */
export const text = (r: unknown): string =>
  ((r as { content?: { type: string; text?: string }[] }).content ?? []).find((c) => c.type === 'text')
    ?.text ?? '';

/** What {@link startDashboardStack} starts. */
export interface DashboardStack {
  dir: string;
  gw: RunningGateway;
  cli: RunningCli;
  browser: RunningChromium;
  page: Page;
  /** The account key the tunnel connected with (its name: `laptop`). */
  keys: Record<string, string>;
  /** An MCP client through the tunnel's path form with a bearer (default: the account's key). */
  client(bearer?: string): Promise<Client>;
  close(): Promise<void>;
}

/** Options of {@link startDashboardStack}. */
export interface DashboardStackOptions {
  /** Accounts and their passwords; the first one owns the tunnel. */
  accounts: [string, string][];
  /** The tunnel's subdomain. */
  subdomain: string;
  /** `--stdio name=command` upstreams of the tunnel. */
  upstreams: Record<string, string>;
  /** More environment of the gateway. */
  gatewayEnv?: NodeJS.ProcessEnv;
  /** More environment of the CLI. */
  cliEnv?: NodeJS.ProcessEnv;
}

/**
 * Starts the gateway, the tunnel and Chromium.
 *
 * @param o - accounts, the tunnel and its upstreams
 * @returns the running stack; `close()` stops everything and asserts the gateway exited 0
 */
export async function startDashboardStack(o: DashboardStackOptions): Promise<DashboardStack> {
  await mkdir(OUTPUT, { recursive: true });
  const owner = o.accounts[0]![0];
  const stack = await startTunnelGateway({
    name: 'dashboard',
    accounts: Object.fromEntries(o.accounts),
    keys: Object.fromEntries(o.accounts.map(([slug]) => [slug, [slug, 'laptop'] as const])),
    ...(o.gatewayEnv && { env: o.gatewayEnv }),
  });
  const { dir, gw, keys } = stack;
  const cli = await startTunnelCli({
    gateway: gw.url,
    apiKey: keys[owner]!,
    subdomain: o.subdomain,
    auth: 'api-key',
    stdio: o.upstreams,
    ...(o.cliEnv && { env: o.cliEnv }),
  }).catch(async (e: unknown) => {
    await stack.close();
    throw e;
  });
  const browser = await launchChromium({
    args: [`--host-resolver-rules=MAP ${ZONE} 127.0.0.1`, '--no-proxy-server'],
  });
  const page = await browser.context.newPage();
  const clients: Client[] = [];
  return {
    dir,
    gw,
    cli,
    browser,
    page,
    keys,
    async client(bearer = keys[owner]!) {
      const c = new Client({ name: 'dashboard-e2e', version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/t/${o.subdomain}--${owner}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${bearer}` } },
        }),
      );
      clients.push(c);
      return c;
    },
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await browser.close();
      await cli.stop();
      const code = await stack.close();
      expect(code, gw.stderr()).toBe(0);
    },
  };
}

/**
 * Saves a full-page screenshot as `test/e2e/.output/dashboard-<name>.png`.
 *
 * @param page - the page
 * @param name - the screenshot's name
 */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUTPUT, `dashboard-${name}.png`), fullPage: true });
}

/**
 * Signs in on the dashboard's login form and waits for the shell.
 *
 * @param page - the page
 * @param who - the gateway origin, the account and its password
 */
export async function signIn(
  page: Page,
  who: { base: string; account: string; password: string },
): Promise<void> {
  await page.goto(`${who.base}/dashboard/`);
  await page.getByLabel('Account').fill(who.account);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 30_000 });
}
