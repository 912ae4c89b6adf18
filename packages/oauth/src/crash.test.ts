/**
 * F2: a gateway killed with SIGKILL in the middle of heavy state writes always restarts on a complete
 * state file (the old or the new version), and the temp files it left behind are removed.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOAuthProvider } from './provider.js';
import { captureLogger } from '@mcppipe/test-utils';

const entry = new URL('../dist/index.js', import.meta.url).href;
const writer = `
  const { createOAuthProvider } = await import(${JSON.stringify(entry)});
  const p = await createOAuthProvider({ dataDir: process.argv[1], publicUrl: 'https://gw.example', resources: () => [], adminPassword: 'x' });
  process.stdout.write('ready\\n');
  for (let i = 0; i < 5000; i++) {
    await Promise.all(Array.from({ length: 20 }, () => p.endpoints.register({ headers: {}, ip: '127.0.0.1', json: { redirect_uris: ['https://c.example/cb'] } })));
  }`;

function writeUntilKilled(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', writer, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', () => resolve());
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), 150 + Math.random() * 150));
  });
}

describe('F2 crash during writes', () => {
  it('restarts on a complete state file after SIGKILL, five times in a row', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcppipe-crash-'));
    let clients = 0;
    for (let round = 0; round < 5; round++) {
      await writeUntilKilled(dir);
      const logger = captureLogger();
      const p = await createOAuthProvider({
        dataDir: dir,
        publicUrl: 'https://gw.example',
        resources: () => [],
        adminPassword: 'x',
        logger,
      });
      await p.close();
      expect(logger.lines.filter((l) => l.includes('STATE FILE CORRUPT'))).toEqual([]);
      const files = await readdir(dir);
      expect(files.filter((f) => f.endsWith('.tmp') || f.includes('corrupt'))).toEqual([]);
      const { StateStore } = await import('./stateStore.js');
      const store = await StateStore.open({ dataDir: dir, logger, clock: Date.now });
      const count = Object.keys(store.state.clients).length;
      expect(count).toBeGreaterThanOrEqual(clients); // never lost what an earlier round had on disk
      clients = count;
    }
    expect(clients).toBeGreaterThan(0);
  }, 60_000);
});
