/**
 * A real browser for the dashboard's tests (DESIGN.md D4): Debian's Chromium (`/usr/bin/chromium`, installed by
 * `.ci/run` when missing) driven by `playwright-core`, headless, without the sandbox (root in CI) or the GPU, with
 * a fresh empty profile directory that is removed on close. Imported as `@mcppipe/test-utils/browser` so tests
 * that do not drive a browser never load playwright.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, LaunchOptions } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser; `CHROMIUM_PATH` overrides. */
export const CHROMIUM_PATH: string = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** The flags every launch gets (D4). */
export const CHROMIUM_ARGS: readonly string[] = ['--headless', '--no-sandbox', '--disable-gpu'];

/** A running Chromium with one browser context over an empty profile; `close()` also removes the profile. */
export interface RunningChromium extends AsyncDisposable {
  context: BrowserContext;
  /** The profile directory (empty at start). */
  profileDir: string;
  close(): Promise<void>;
}

/** Options of {@link launchChromium}. */
export interface LaunchChromiumOptions {
  /** Extra command-line flags, e.g. `--host-resolver-rules=MAP tunnel.test 127.0.0.1`. */
  args?: string[];
  /** Viewport size in CSS pixels. Default 1280 × 860. */
  viewport?: { width: number; height: number };
  /** How long the launch may take in ms. Default 60 000 (a loaded machine). */
  timeoutMs?: number;
}

/** Whether Debian's Chromium is installed (tests skip with this reason when not). */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/**
 * Launches Debian's Chromium headless with an empty profile directory.
 *
 * @param options - extra flags, the viewport and the launch timeout
 * @returns the browser context and its profile directory
 * @throws Error when `/usr/bin/chromium` is missing (install the `chromium` package: `.ci/run` does)
 */
export async function launchChromium(options: LaunchChromiumOptions = {}): Promise<RunningChromium> {
  if (!hasChromium()) {
    throw new Error(`${CHROMIUM_PATH} is missing: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  const profileDir = await mkdtemp(join(tmpdir(), 'mcppipe-chromium-'));
  const launch: LaunchOptions = {
    executablePath: CHROMIUM_PATH,
    headless: true,
    chromiumSandbox: false,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    timeout: options.timeoutMs ?? 60_000,
  };
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profileDir, {
      ...launch,
      viewport: options.viewport ?? { width: 1280, height: 860 },
    });
  } catch (err) {
    await rm(profileDir, { recursive: true, force: true });
    throw err;
  }
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await context.close().catch(() => undefined);
      await rm(profileDir, { recursive: true, force: true });
    })());
  return { context, profileDir, close, [Symbol.asyncDispose]: close };
}
