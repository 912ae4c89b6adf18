import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The real reference servers installed as dependencies of this package. */
export type ReferenceServer = 'everything' | 'memory' | 'filesystem';

/**
 * Absolute path of a reference server's entry script (run it with `process.execPath`).
 *
 * @param server - which reference server
 * @returns the path of its `dist/index.js`
 */
export function referenceServerPath(server: ReferenceServer): string {
  const pkg = require.resolve(`@modelcontextprotocol/server-${server}/package.json`);
  return join(dirname(pkg), 'dist', 'index.js');
}

/** Absolute path of the folder holding the fixture servers (`test/helpers/fixtures`). */
export const fixturesDir: string = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/**
 * Absolute path of one fixture server script in `test/helpers/fixtures`.
 *
 * @param name - file name, e.g. `crash-after.mjs`
 */
export function fixturePath(name: string): string {
  return join(fixturesDir, name);
}

/** The sample folder served by the filesystem server in the demo layout. */
export const sampleFilesDir: string = join(fixturesDir, '..', '..', '..', 'examples', 'sample-files');
