import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from './types.js';
import type { ConfigChange, ConfigWatcher } from './watch.js';
import { watchConfig } from './watch.js';

/** Waits on events, never on sleeps: each call returns a promise for the next value pushed. */
class Events<T> {
  private readonly queue: T[] = [];
  private waiters: ((value: T) => void)[] = [];
  readonly all: T[] = [];
  push = (value: T): void => {
    this.all.push(value);
    const waiter = this.waiters.shift();
    if (waiter) waiter(value);
    else this.queue.push(value);
  };
  next(timeoutMs = 15_000): Promise<T> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push((v) => {
        clearTimeout(timer);
        resolve(v);
      });
    });
  }
}

function recordingLogger(): { logger: Logger; errors: Events<{ obj: object; msg: string | undefined }> } {
  const errors = new Events<{ obj: object; msg: string | undefined }>();
  const noop = (): void => {};
  return {
    logger: { debug: noop, info: noop, warn: noop, error: (obj, msg) => errors.push({ obj, msg }) },
    errors,
  };
}

const json = (servers: Record<string, unknown>): string => JSON.stringify({ mcpServers: servers }, null, 2);

let dir: string;
let file: string;
let watcher: ConfigWatcher | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcppipe-watch-'));
  file = join(dir, 'mcp.json');
  writeFileSync(file, json({ a: { url: 'http://a' }, b: { command: 'b' } }));
});

afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('watchConfig (G10)', { timeout: 30_000 }, () => {
  it('an editor write-temp-then-rename is seen through the directory watch', async () => {
    const changes = new Events<ConfigChange>();
    // Polling is slowed to a minute so only the directory event can deliver the change in time.
    watcher = await watchConfig(file, changes.push, { pollIntervalMs: 60_000, debounceMs: 50 });
    expect(watcher.current.upstreams.map((u) => u.name)).toEqual(['a', 'b']);
    const tmp = join(dir, '.mcp.json.tmp');
    writeFileSync(tmp, json({ a: { url: 'http://a2' }, b: { command: 'b' }, c: { command: 'c' } }));
    renameSync(tmp, file);
    const change = await changes.next();
    expect(change.diff.added.map((u) => u.name)).toEqual(['c']);
    expect(change.diff.changed.map((c) => [c.name, c.fields])).toEqual([['a', ['url']]]);
    expect(change.diff.unchanged.map((u) => u.name)).toEqual(['b']);
    expect(change.diff.removed).toEqual([]);
    expect(change.previous.upstreams.map((u) => u.name)).toEqual(['a', 'b']);
    expect(watcher.current).toBe(change.next);
  });

  it('an in-place rewrite with no directory event (a bind-mounted file) is seen by polling', async () => {
    const changes = new Events<ConfigChange>();
    watcher = await watchConfig(file, changes.push, {
      watchDirectory: false,
      pollIntervalMs: 50,
      debounceMs: 20,
    });
    writeFileSync(file, json({ a: { url: 'http://a' } }));
    const change = await changes.next();
    expect(change.diff.removed.map((u) => u.name)).toEqual(['b']);
    expect(change.diff.unchanged.map((u) => u.name)).toEqual(['a']);
  });

  it('an invalid or unparsable file is logged and ignored; the previous config stays live', async () => {
    const changes = new Events<ConfigChange>();
    const { logger, errors } = recordingLogger();
    watcher = await watchConfig(file, changes.push, { logger, pollIntervalMs: 50, debounceMs: 20 });
    const before = watcher.current;
    writeFileSync(file, '{ "mcpServers": { "a": ');
    const syntax = await errors.next();
    expect(syntax.msg).toBe('config file is invalid; keeping the previous configuration');
    expect(syntax.obj).toMatchObject({ path: file, err: { code: 'MCPP_CFG_SYNTAX' } });
    expect(watcher.current).toBe(before);
    writeFileSync(file, json({ Bad: { url: 'http://x' } }));
    const invalid = await errors.next();
    expect(invalid.obj).toMatchObject({ err: { code: 'MCPP_CFG_INVALID' } });
    expect(watcher.current).toBe(before);
    writeFileSync(file, json({ a: { url: 'http://a' }, b: { command: 'b', hub: false } }));
    const change = await changes.next();
    expect(change.previous).toBe(before);
    expect(change.diff.changed.map((c) => [c.name, c.fields])).toEqual([['b', ['hub']]]);
    expect(changes.all).toHaveLength(1);
  });

  it('a burst of writes is one reload with the last content', async () => {
    const changes = new Events<ConfigChange>();
    watcher = await watchConfig(file, changes.push, { pollIntervalMs: 60_000, debounceMs: 200 });
    for (let i = 1; i <= 5; i++) writeFileSync(file, json({ a: { url: `http://a${'x'.repeat(i)}` } }));
    const change = await changes.next();
    expect(change.next.upstreams).toEqual([{ name: 'a', transport: 'http', url: 'http://axxxxx' }]);
    // A rewrite with the same content (same text) is not a change; a later real change still is.
    writeFileSync(file, json({ a: { url: 'http://axxxxx' } }));
    writeFileSync(file, json({ z: { url: 'http://z' } }));
    const second = await changes.next();
    expect(second.diff.added.map((u) => u.name)).toEqual(['z']);
    expect(changes.all).toHaveLength(2);
  });

  it('a rewrite that parses to the same config (formatting only) does not call back', async () => {
    const changes = new Events<ConfigChange>();
    const debug = new Events<string | undefined>();
    const noop = (): void => {};
    const logger: Logger = { debug: (_o, msg) => debug.push(msg), info: noop, warn: noop, error: noop };
    watcher = await watchConfig(file, changes.push, {
      logger,
      watchDirectory: false,
      pollIntervalMs: 50,
      debounceMs: 20,
    });
    writeFileSync(file, JSON.stringify({ mcpServers: { b: { command: 'b' }, a: { url: 'http://a' } } }));
    expect(await debug.next()).toBe('config file rewritten without changes');
    expect(changes.all).toEqual([]);
  });

  it('a deleted file is a warning, and the file coming back is a change', async () => {
    const changes = new Events<ConfigChange>();
    const warnings = new Events<string | undefined>();
    const noop = (): void => {};
    const logger: Logger = { debug: noop, info: noop, warn: (_o, msg) => warnings.push(msg), error: noop };
    watcher = await watchConfig(file, changes.push, { logger, pollIntervalMs: 50, debounceMs: 20 });
    rmSync(file);
    expect(await warnings.next()).toBe('config file cannot be read; keeping the previous configuration');
    writeFileSync(file, json({ c: { command: 'c' } }));
    const change = await changes.next();
    expect(change.diff.added.map((u) => u.name)).toEqual(['c']);
  });

  it('callbacks never overlap and a failing callback is logged', async () => {
    const { logger, errors } = recordingLogger();
    let running = 0;
    let maxRunning = 0;
    const done = new Events<number>();
    let n = 0;
    watcher = await watchConfig(
      file,
      async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setImmediate(r));
        running--;
        n++;
        done.push(n);
        if (n === 1) throw new Error('boom');
      },
      { logger, watchDirectory: false, pollIntervalMs: 50, debounceMs: 10 },
    );
    writeFileSync(file, json({ a: { url: 'http://1' } }));
    expect(await done.next()).toBe(1);
    expect((await errors.next()).msg).toBe('config change handler failed');
    writeFileSync(file, json({ a: { url: 'http://22' } }));
    expect(await done.next()).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('TOML files are parsed as upstreams files; a custom parse and an initial config are honoured', async () => {
    const toml = join(dir, 'tunnel.toml');
    writeFileSync(toml, '[upstreams.a]\nhttp = "http://a"\n');
    const changes = new Events<ConfigChange>();
    const w = await watchConfig(toml, changes.push, {
      watchDirectory: false,
      pollIntervalMs: 50,
      debounceMs: 10,
    });
    try {
      expect(w.current).toEqual({
        mode: 'single',
        upstreams: [{ name: 'a', transport: 'http', url: 'http://a' }],
      });
      writeFileSync(toml, '[upstreams.a]\nhttp = "http://a"\n[upstreams.b]\nstdio = "b"\n');
      expect((await changes.next()).next.mode).toBe('aggregate');
    } finally {
      await w.close();
    }
    const custom = new Events<ConfigChange<{ upstreams: []; text: string }>>();
    const initial = { upstreams: [] as [], text: readFileSync(file, 'utf8') };
    await using w2 = await watchConfig(file, custom.push, {
      initial,
      parse: (text) => ({ upstreams: [] as [], text }),
      watchDirectory: false,
      pollIntervalMs: 50,
      debounceMs: 10,
    });
    expect(w2.current).toBe(initial);
    writeFileSync(file, 'anything');
    expect((await custom.next()).next.text).toBe('anything');
  });

  it('with an initial config, an edit made before watching started is reported', async () => {
    const changes = new Events<ConfigChange>();
    const initial = {
      mode: 'aggregate' as const,
      upstreams: [{ name: 'a', transport: 'http' as const, url: 'http://old' }],
    };
    watcher = await watchConfig(file, changes.push, { initial, pollIntervalMs: 60_000, debounceMs: 10 });
    const change = await changes.next();
    expect(change.previous).toBe(initial);
    expect(change.diff.changed.map((c) => [c.name, c.fields])).toEqual([['a', ['url']]]);
    expect(change.diff.added.map((u) => u.name)).toEqual(['b']);
  });

  it('a file that is invalid at start throws (nothing is watched); bad options are a TypeError', async () => {
    writeFileSync(file, '{');
    await expect(watchConfig(file, () => {})).rejects.toMatchObject({ code: 'MCPP_CFG_SYNTAX' });
    await expect(watchConfig(join(dir, 'missing.json'), () => {})).rejects.toMatchObject({
      code: 'MCPP_CFG_READ_FAILED',
    });
    await expect(watchConfig(file, () => {}, { pollIntervalMs: 0 })).rejects.toThrowError(
      new TypeError('watchConfig: pollIntervalMs must be a number of ms >= 1'),
    );
    await expect(watchConfig(file, () => {}, { debounceMs: -1 })).rejects.toThrowError(
      new TypeError('watchConfig: debounceMs must be a number of ms >= 0'),
    );
  });

  it('close is idempotent and stops reloads', async () => {
    const changes = new Events<ConfigChange>();
    watcher = await watchConfig(file, changes.push, { pollIntervalMs: 50, debounceMs: 10 });
    await watcher.close();
    await watcher.close();
    writeFileSync(file, json({ q: { url: 'http://q' } }));
    await expect(changes.next(500)).rejects.toThrowError('no event within 500 ms');
  });
});
