import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { fixturePath, fixturesDir, isPidRunning, processTreePids, waitFor } from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';
import { Supervisor } from '../index.js';
import { MARK_PID, MARK_START, reapOrphans } from '../stdio.js';

const T = 90_000;

/** test/helpers, where the reference servers are installed (so `npx --no-install` finds them offline). */
const helpersDir = dirname(fixturesDir);

describe('process trees', () => {
  it(
    'stop() leaves no process of the tree: a wrapper whose grandchild ignores stdin EOF and SIGTERM',
    async () => {
      const sup = new Supervisor({
        upstreams: [
          {
            name: 'tree',
            transport: 'stdio',
            command: process.execPath,
            args: [fixturePath('sup-tree.mjs')],
          },
        ],
        killGraceMs: 300,
      });
      try {
        await sup.start();
        const snap = sup.get('tree')!;
        expect(snap.phase).toBe('available');
        const result = await sup.request('tree', {
          method: 'tools/call',
          params: { name: 'pid', arguments: {} },
        });
        const serverPid = Number((result['content'] as Array<{ text: string }>)[0]!.text);
        const tree = processTreePids(snap.pid!);
        expect(tree).toContain(snap.pid);
        expect(tree).toContain(serverPid);
        expect(serverPid).not.toBe(snap.pid);
        await sup.stop();
        for (const pid of tree) expect(isPidRunning(pid), `pid ${pid}`).toBe(false);
      } finally {
        await sup.stop();
      }
    },
    T,
  );

  it(
    'stop() ends an npx-launched server with its whole tree (npm exec → sh → node), offline',
    async () => {
      const sup = new Supervisor({
        upstreams: [
          {
            name: 'npx',
            transport: 'stdio',
            command: 'npx --offline --no-install mcp-server-everything',
            cwd: helpersDir,
          },
        ],
        killGraceMs: 1_000,
      });
      try {
        await sup.start();
        const snap = sup.get('npx')!;
        expect(snap.phase, snap.lastError).toBe('available');
        let tree: number[] = [];
        await waitFor(() => (tree = processTreePids(snap.pid!)).length >= 2, {
          timeoutMs: 10_000,
          message: 'npx tree',
        });
        const r = await sup.request('npx', {
          method: 'tools/call',
          params: { name: 'echo', arguments: { message: 'via npx' } },
        });
        expect(JSON.stringify(r)).toContain('via npx');
        await sup.stop();
        for (const pid of tree) expect(isPidRunning(pid), `pid ${pid}`).toBe(false);
      } finally {
        await sup.stop();
      }
    },
    T,
  );

  it(
    'a restart after the wrapper is SIGKILLed also ends the grandchild it left behind',
    async () => {
      await using sup = new Supervisor({
        upstreams: [
          {
            name: 'tree',
            transport: 'stdio',
            command: process.execPath,
            args: [fixturePath('sup-tree.mjs')],
          },
        ],
        killGraceMs: 300,
      });
      await sup.start();
      const result = await sup.request('tree', {
        method: 'tools/call',
        params: { name: 'pid', arguments: {} },
      });
      const serverPid = Number((result['content'] as Array<{ text: string }>)[0]!.text);
      const wrapperPid = sup.get('tree')!.pid!;
      process.kill(wrapperPid, 'SIGKILL');
      await waitFor(() => sup.get('tree')!.phase === 'available' && sup.get('tree')!.pid !== wrapperPid, {
        timeoutMs: 30_000,
        message: 'back to available',
      });
      await waitFor(() => !isPidRunning(serverPid), {
        timeoutMs: 10_000,
        message: 'orphaned grandchild gone',
      });
    },
    T,
  );

  it(
    'orphans of a supervisor process that is gone are reaped at start; live supervisors are left alone',
    async () => {
      // A "previous run": a process marked with the pid of a supervisor that no longer exists.
      const gone = spawn(process.execPath, ['-e', '0']);
      await new Promise((r) => gone.once('exit', r));
      const keepAlive = ['-e', 'setInterval(() => {}, 1 << 30)'];
      const orphan = spawn(process.execPath, keepAlive, {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, [MARK_PID]: String(gone.pid), [MARK_START]: '1' },
      });
      // A child of a supervisor that is alive (this process, right start time unknown → pid check only).
      const owned = spawn(process.execPath, keepAlive, {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, [MARK_PID]: String(process.pid), [MARK_START]: '' },
      });
      try {
        await waitFor(() => isPidRunning(owned.pid!), { timeoutMs: 10_000 });
        // (Another supervisor starting on this machine at the same moment may reap the orphan first: either way
        // it must be gone, and the child of a live supervisor must not.)
        await using sup = new Supervisor({
          upstreams: [
            {
              name: 'fresh',
              transport: 'stdio',
              command: process.execPath,
              args: [fixturePath('sup-basic.mjs')],
            },
          ],
          killGraceMs: 500,
        });
        await sup.start();
        await waitFor(() => !isPidRunning(orphan.pid!), { timeoutMs: 10_000, message: 'orphan reaped' });
        expect(isPidRunning(owned.pid!)).toBe(true);
        expect(await reapOrphans(500)).not.toContain(owned.pid);
        expect(isPidRunning(owned.pid!)).toBe(true);
      } finally {
        for (const p of [orphan, owned]) {
          try {
            process.kill(p.pid!, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
    },
    T,
  );
});
