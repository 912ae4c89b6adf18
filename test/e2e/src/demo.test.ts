// The demo script the README's `npx -y pnpm@12.4.2 demo` runs (`node examples/demo.mjs`, issue 13.9): it says
// it builds before the build runs, serves, and a Ctrl-C ends it with exit code 0 without pnpm's failure line. The
// Ctrl-C is a terminal's: SIGINT to the whole process group (here the demo, turbo, whatever else is in it); pnpm prints
// its failure line only for a non-zero exit of the script.
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fixturesDir, freePort, waitFor } from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';

const root = join(fixturesDir, '..', '..', '..');

describe('examples/demo.mjs', () => {
  it(
    'announces the build, serves, and exits 0 on SIGINT without a failure line',
    { timeout: 300_000 },
    async () => {
      const port = await freePort();
      // the pnpm that `npx -y pnpm@12.4.2` runs, on PATH as under pnpm (turbo looks for it there)
      const pnpm = execFileSync('npx', ['-y', 'pnpm@12.4.2', 'exec', 'sh', '-c', 'command -v pnpm'], {
        cwd: root,
        encoding: 'utf8',
      }).trim();
      const proc = spawn(process.execPath, [join(root, 'examples', 'demo.mjs')], {
        cwd: root,
        env: {
          ...process.env,
          PATH: `${dirname(pnpm)}:${process.env['PATH'] ?? ''}`,
          MCPPIPE_PORT: String(port),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group, as a terminal's foreground job
      });
      const group = -(proc.pid ?? 0);
      let out = '';
      proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
      proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const exited = new Promise<{ code: number | null; signal: string | null }>((r) =>
        proc.once('exit', (code, signal) => r({ code, signal })),
      );
      try {
        await waitFor(() => out.includes('Press Ctrl-C to stop.'), {
          timeoutMs: 240_000, // a build that is not cached takes minutes on a loaded machine
          message: 'the demo session',
        });
        expect(out).toContain(`serving http://127.0.0.1:${port}/mcp`);
        // the build message comes before the build step runs, i.e. before anything else the demo prints; with the
        // packages built (as they are for these tests) it does not claim a first run
        expect(out).toContain('mcppipe demo: checking the build (cached unless the sources changed)');
        expect(out).not.toContain('first run');
        // (turbo prints nothing of its own under CI=true with a cached build; then the first line after it is the demo's)
        const building = out.indexOf('mcppipe demo: checking the build');
        const turbo = out.indexOf('turbo');
        expect(building).toBeLessThan(turbo >= 0 ? turbo : out.indexOf('serving http://'));
        expect(out).toContain('everything__echo → Echo: hello through mcppipe');
        process.kill(group, 'SIGINT');
        const end = await exited;
        expect(end).toEqual({ code: 0, signal: null });
        expect(out).not.toMatch(/ELIFECYCLE|Command failed/);
        expect(out).toMatch(/"?stopped"?/);
      } finally {
        if (proc.exitCode === null && proc.signalCode === null) process.kill(group, 'SIGKILL');
      }
    },
  );
});
