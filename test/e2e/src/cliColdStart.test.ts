// Cold start order (bench R5, T6), read from MCPPIPE_TRACE_STARTUP=1: `mcppipe up` spawns its stdio upstreams before
// it loads yargs and the serving side, hands those very processes to the supervisor, and leaves none behind when it
// exits with a usage error. Only the order of events is checked, never their timing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, fixturePath, isPidRunning, runCli, startCli } from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';

const trace = { MCPPIPE_TRACE_STARTUP: '1' };
const stdio = (name: string, ...flags: string[]) =>
  `${name}=${[JSON.stringify(process.execPath), fixturePath('sup-basic.mjs'), ...flags].join(' ')}`;

function events(stderr: string): { event: string; data: Record<string, unknown> }[] {
  return [...stderr.matchAll(/^mcppipe-trace \S+ cpu=\d+ ([^{\n]+?)(?: (\{.*\}))?$/gm)].map((m) => ({
    event: m[1] ?? '',
    data: m[2] ? (JSON.parse(m[2]) as Record<string, unknown>) : {},
  }));
}

describe('mcppipe up: cold start order', () => {
  it('spawns the stdio upstreams before loading the CLI and the serving side, then hands them over', async () => {
    await using cli = await startCli(['--stdio', stdio('a'), '--stdio', stdio('b')], { env: trace });
    const ev = events(cli.stderr());
    const names = ev.map((e) => e.event);
    const at = (name: string) => names.indexOf(name);
    const early = ev.filter((e) => e.event === 'early upstream spawned');
    expect(early.map((e) => e.data['upstream']).sort()).toEqual(['a', 'b']);
    expect(names.lastIndexOf('early upstream spawned')).toBeLessThan(at('cli modules loaded'));
    const handedOver = ev.filter((e) => e.event === 'upstream handed over').map((e) => e.data['pid']);
    expect(handedOver.sort()).toEqual(early.map((e) => e.data['pid']).sort());
    expect(names).not.toContain('upstream spawned'); // no second spawn
    expect(names.lastIndexOf('upstream handed over')).toBeLessThan(at('serving modules loaded'));
    expect(at('serving modules loaded')).toBeLessThan(at('listening'));
    expect(names).not.toContain('toml parser loaded'); // no TOML read: the bundled parser never runs
  });

  it('evaluates the TOML parser only when an upstreams file is read, before the early spawn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcppipe-cold-'));
    try {
      const file = join(dir, 'up.toml');
      writeFileSync(file, `[upstreams.a]\nstdio = ${JSON.stringify(stdio('a').slice(2))}\n`);
      await using cli = await startCli(['--upstreams-file', file], { env: trace });
      const names = events(cli.stderr()).map((e) => e.event);
      expect(names.filter((n) => n === 'toml parser loaded')).toHaveLength(1);
      expect(names.indexOf('toml parser loaded')).toBeLessThan(names.indexOf('early upstream spawned'));
      expect(names).toContain('listening');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reaps the orphans of a crashed run after the early spawn, then spawns afresh instead of handing over', async () => {
    // an orphan: marked with the pid of a supervisor that is gone (a process that has exited)
    const gone = spawn(process.execPath, ['-e', '0']);
    const gonePid = gone.pid ?? 0;
    await new Promise((r) => gone.once('exit', r));
    const orphan = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
      env: { ...process.env, MCPPIPE_SUPERVISOR_PID: String(gonePid), MCPPIPE_SUPERVISOR_START: '1' },
    });
    try {
      await using cli = await startCli(['--stdio', stdio('a')], { env: trace });
      const ev = events(cli.stderr());
      const early = ev.filter((e) => e.event === 'early upstream spawned').map((e) => e.data['pid']);
      expect(early).toHaveLength(1);
      expect(ev.map((e) => e.event)).not.toContain('upstream handed over');
      const fresh = ev.filter((e) => e.event === 'upstream spawned').map((e) => e.data['pid'] as number);
      expect(fresh).toHaveLength(1);
      expect(fresh).not.toEqual(early);
      // the orphan got SIGTERM and the discarded early child SIGKILL; the fresh one serves (bounded waits)
      const gonePids = [orphan.pid ?? 0, early[0] as number];
      for (let i = 0; i < 100 && gonePids.some(isPidRunning); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(gonePids.filter(isPidRunning)).toEqual([]);
      expect(isPidRunning(fresh[0] ?? 0)).toBe(true);
    } finally {
      orphan.kill('SIGKILL');
    }
  });

  it('kills the early upstreams when the command line turns out to be a usage error', async () => {
    // --ignore-eof: the fixture outlives its closed stdin, so only mcppipe's own kill ends it
    const r = await runCli(['up', '--stdio', stdio('a', '--ignore-eof'), '--port', 'none'], { env: trace });
    expect(r.code).toBe(2);
    const pids = events(r.stderr)
      .filter((e) => e.event === 'early upstream spawned')
      .map((e) => e.data['pid'] as number);
    expect(pids).toHaveLength(1);
    // SIGKILL was sent on exit; the kernel ends the process right after (bounded wait, not a timing check)
    for (let i = 0; i < 100 && pids.some(isPidRunning); i++) await new Promise((r) => setTimeout(r, 50));
    expect(pids.filter(isPidRunning)).toEqual([]);
  });

  it('stops cleanly on SIGTERM while an upstream is still connecting: exit 0, no upstream left running', async () => {
    // an upstream that never answers initialize (and outlives a closed stdin)
    const silent = `silent=${JSON.stringify(process.execPath)} -e "setInterval(() => {}, 1000)"`;
    const proc = spawn(process.execPath, [cliPath, 'up', '--port', '0', '--stdio', silent], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...trace },
    });
    let stderr = '';
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    try {
      for (let i = 0; i < 600 && !/ listening$/m.test(stderr); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(stderr).toMatch(/ listening$/m);
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      proc.kill('SIGKILL');
    }
    expect(stderr).not.toContain('unexpected error');
    const pids = events(stderr)
      .filter((e) => e.event === 'early upstream spawned' || e.event === 'upstream spawned')
      .map((e) => e.data['pid'] as number);
    expect(pids).toHaveLength(1);
    for (let i = 0; i < 100 && pids.some(isPidRunning); i++) await new Promise((r) => setTimeout(r, 50));
    expect(pids.filter(isPidRunning)).toEqual([]);
  });
});
