import { spawn } from 'node:child_process';
import { isMcpPipeError } from '@mcppipe/errors';
import { fixturePath, isPidRunning, referenceServerPath, waitFor } from '@mcppipe/test-utils';
import type { StateChangedEvent } from '@mcppipe/upstream-state';
import { aggregatorPolicy, gatewayPolicy } from '@mcppipe/upstream-state';
import { describe, expect, it } from 'vitest';
import type { Logger, StdioUpstreamSpec, UpstreamNotificationEvent } from './index.js';
import { Supervisor } from './index.js';

const T = 60_000; // generous: a shared 2-core machine
const fast = { initialBackoffMs: 50, maxBackoffMs: 200, jitterRatio: 0 };

function fixture(name: string, file: string, ...args: string[]): StdioUpstreamSpec {
  return { name, transport: 'stdio', command: process.execPath, args: [fixturePath(file), ...args] };
}

function reference(name: string, server: 'everything' | 'memory'): StdioUpstreamSpec {
  return { name, transport: 'stdio', command: process.execPath, args: [referenceServerPath(server)] };
}

function recordingLogger() {
  const lines: Array<{ level: string; msg: string | undefined; obj: object }> = [];
  const at =
    (level: string) =>
    (obj: object, msg?: string): void => {
      lines.push({ level, msg, obj });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

const echo = (text: string) => ({ method: 'tools/call', params: { name: 'echo', arguments: { text } } });

function textOf(result: Record<string, unknown>): string {
  return ((result['content'] as Array<{ text: string }>)[0] ?? { text: '' }).text;
}

describe('start', () => {
  it(
    'resolves when every upstream connected or failed its first attempt; one failure does not affect the others',
    async () => {
      await using sup = new Supervisor({
        upstreams: [fixture('good', 'sup-basic.mjs'), fixture('bad', 'sup-exit-at-once.mjs')],
        policy: aggregatorPolicy({ initialBackoffMs: 60_000, maxBackoffMs: 60_000 }, {}),
      });
      await sup.start();
      expect(sup.list().map((s) => [s.name, s.phase])).toEqual([
        ['bad', 'recovering'],
        ['good', 'available'],
      ]);
      const bad = sup.get('bad')!;
      expect(bad.lastError).toContain('fatal: cannot open database');
      expect(bad.lastError).toContain('exited with code 1');

      const t0 = Date.now();
      const err = await sup.request('bad', echo('x')).catch((e: unknown) => e);
      expect(Date.now() - t0).toBeLessThan(1_000);
      expect(isMcpPipeError(err, 'MCPP_SUP_UNAVAILABLE')).toBe(true);
      expect((err as { data: { upstream: string; phase: string; retryAfterMs: number } }).data).toMatchObject(
        {
          upstream: 'bad',
          phase: 'recovering',
        },
      );
      expect((err as { data: { retryAfterMs: number } }).data.retryAfterMs).toBeGreaterThan(1_000);

      expect(textOf(await sup.request('good', echo('hi')))).toBe('hi');
      expect(
        isMcpPipeError(
          await sup.request('nope', echo('x')).catch((e: unknown) => e),
          'MCPP_SUP_UNKNOWN_UPSTREAM',
        ),
      ).toBe(true);
    },
    T,
  );

  it(
    'a server that prints its error first and 40 lines of usage after: lastError keeps that first line and the tail',
    async () => {
      const { logger, lines } = recordingLogger();
      await using sup = new Supervisor({
        upstreams: [fixture('usage', 'sup-usage-error.mjs')],
        policy: aggregatorPolicy({ initialBackoffMs: 60_000, maxBackoffMs: 60_000 }, {}),
        logger,
      });
      await sup.start();
      const snap = sup.get('usage')!;
      expect(snap.phase).toBe('recovering');
      expect(snap.lastError).toMatch(/^the process exited with code 1: [^;]*; stderr: /);
      expect(snap.lastError?.split('; stderr: ')[1]).toBe(
        'No access token was provided. | ' +
          'Usage: sup-usage-error [options] | ' +
          '  --option-1  what option 1 does (usage line 1) | … | ' +
          [36, 37, 38, 39, 40]
            .map((i) => `  --option-${i}  what option ${i} does (usage line ${i})`)
            .join(' | '),
      );
      // the log says the same
      const failed = lines.find((l) => l.msg === 'upstream connection attempt failed');
      expect(failed?.obj).toMatchObject({ upstream: 'usage', err: snap.lastError });
    },
    T,
  );

  it(
    'an unset ${VAR} without default fails that upstream only, at once, naming the variable',
    async () => {
      const events: StateChangedEvent[] = [];
      await using sup = new Supervisor({
        upstreams: [
          { ...fixture('cfg', 'sup-basic.mjs'), env: { TOKEN: '${MCPP_TEST_UNSET_TOKEN}' } },
          fixture('ok', 'sup-basic.mjs'),
        ],
        env: { ...process.env, MCPP_TEST_UNSET_TOKEN: undefined },
      });
      sup.on('state_changed', (e) => events.push(e));
      await sup.start();
      expect(sup.get('cfg')!.phase).toBe('failed');
      expect(sup.get('cfg')!.lastErrorCode).toBe('MCPP_CFG_UNSET_VARIABLE');
      expect(sup.get('cfg')!.lastError).toContain('cfg.env.TOKEN: ${MCPP_TEST_UNSET_TOKEN} is not set');
      expect(sup.get('ok')!.phase).toBe('available');
      expect(events.filter((e) => e.upstream === 'cfg')).toEqual([
        expect.objectContaining({ from: 'connecting', to: 'failed', attempt: 1 }),
      ]);
    },
    T,
  );

  it(
    'a start timeout fails the attempt and kills the slow process; a fast enough start succeeds',
    async () => {
      await using sup = new Supervisor({
        upstreams: [
          { ...fixture('slow', 'sup-slow-start.mjs', '--delay', '5000'), startTimeoutMs: 700 },
          { ...fixture('ok', 'sup-slow-start.mjs', '--delay', '200'), startTimeoutMs: 20_000 },
        ],
        policy: aggregatorPolicy({ initialBackoffMs: 60_000, maxBackoffMs: 60_000 }, {}),
      });
      await sup.start();
      expect(sup.get('ok')!.phase).toBe('available');
      expect(sup.get('slow')!.phase).toBe('recovering');
      expect(sup.get('slow')!.lastError).toMatch(/no handshake within 700 ms/);
      expect(sup.get('slow')!.lastErrorCode).toBe('MCPP_SUP_START_TIMEOUT');
    },
    T,
  );
});

describe('recovery with real processes', () => {
  it(
    'SIGKILL of one upstream: it returns to available by itself while the other answers every call meanwhile',
    async () => {
      const events: StateChangedEvent[] = [];
      await using sup = new Supervisor({
        upstreams: [reference('everything', 'everything'), reference('memory', 'memory')],
        policy: aggregatorPolicy({ initialBackoffMs: 100 }, {}),
      });
      sup.on('state_changed', (e) => events.push(e));
      await sup.start();
      expect(sup.list().map((s) => s.phase)).toEqual(['available', 'available']);
      const before = sup.get('everything')!;
      const pid = before.pid!;

      process.kill(pid, 'SIGKILL');
      let calls = 0;
      await waitFor(
        async () => {
          await sup.request('memory', {
            method: 'tools/call',
            params: { name: 'read_graph', arguments: {} },
          });
          calls++;
          return events.some(
            (e) => e.upstream === 'everything' && e.to === 'available' && e.from === 'recovering',
          );
        },
        { timeoutMs: 30_000, intervalMs: 10, message: 'everything back to available' },
      );
      expect(calls).toBeGreaterThan(0);
      const after = sup.get('everything')!;
      expect(after.phase).toBe('available');
      expect(after.pid).not.toBe(pid);
      expect(after.generation).toBe(before.generation + 1);
      expect(isPidRunning(pid)).toBe(false);
      expect(after.lastErrorCode).toBe('MCPP_SUP_EXITED');
      const back = events.find(
        (e) => e.upstream === 'everything' && e.to === 'available' && e.from === 'recovering',
      )!;
      expect(back.downtimeMs).toBeGreaterThan(0);
      expect(events.find((e) => e.to === 'recovering')!.error).toMatch(/killed by SIGKILL/);
      expect(events.filter((e) => e.upstream === 'memory')).toHaveLength(1); // only its initial connect
      const r = await sup.request('everything', {
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: 'again' } },
      });
      expect(textOf(r)).toContain('again');
    },
    T,
  );

  it(
    'a crash mid-call is a death: recovering at once, then available again',
    async () => {
      const events: StateChangedEvent[] = [];
      await using sup = new Supervisor({
        upstreams: [fixture('crashy', 'sup-crash-after.mjs', '--calls', '2')],
        policy: aggregatorPolicy(fast, {}),
      });
      sup.on('state_changed', (e) => events.push(e));
      await sup.start();
      await sup.request('crashy', echo('1'));
      const err = await sup.request('crashy', echo('2')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      await waitFor(() => events.some((e) => e.from === 'recovering' && e.to === 'available'), {
        timeoutMs: 30_000,
      });
      expect(events.find((e) => e.to === 'recovering')!.error).toContain('crashing after 2 calls');
      expect(textOf(await sup.request('crashy', echo('3')))).toBe('3');
    },
    T,
  );

  it(
    'an upstream that exits at once ends in failed under the aggregator policy (small limits)',
    async () => {
      let spawns = 0;
      const events: StateChangedEvent[] = [];
      await using sup = new Supervisor({
        upstreams: [fixture('dead', 'sup-exit-at-once.mjs')],
        policy: aggregatorPolicy({ ...fast, maxAttempts: 3 }, {}),
        spawn: ((...args: Parameters<typeof spawn>) => {
          spawns++;
          return spawn(...args);
        }) as typeof spawn,
      });
      sup.on('state_changed', (e) => events.push(e));
      await sup.start();
      await waitFor(() => sup.get('dead')!.phase === 'failed', { timeoutMs: 30_000, message: 'failed' });
      expect(spawns).toBe(3);
      expect(events.map((e) => e.to)).toEqual(['recovering', 'failed']);
      expect(events[1]).toMatchObject({ attempt: 3 });
      expect(events[1]!.error).toContain('fatal: cannot open database');
      const err = await sup.request('dead', echo('x')).catch((e: unknown) => e);
      expect((err as { data: unknown }).data).toEqual({ upstream: 'dead', phase: 'failed' });
      // failed leaves only on reinitialize
      await sup.reinitialize('dead');
      expect(spawns).toBe(4);
      expect(events.map((e) => e.to).slice(2)).toEqual(['connecting', 'recovering']);
    },
    T,
  );

  it(
    'keeps retrying under the gateway policy',
    async () => {
      let spawns = 0;
      await using sup = new Supervisor({
        upstreams: [fixture('dead', 'sup-exit-at-once.mjs')],
        policy: gatewayPolicy({ ...fast, maxBackoffMs: 100 }),
        spawn: ((...args: Parameters<typeof spawn>) => {
          spawns++;
          return spawn(...args);
        }) as typeof spawn,
      });
      await sup.start();
      await waitFor(() => spawns >= 6, { timeoutMs: 30_000, message: '6 attempts' });
      expect(sup.get('dead')!.phase).toBe('recovering');
    },
    T,
  );

  it(
    'a hung ping restarts the child',
    async () => {
      const events: StateChangedEvent[] = [];
      await using sup = new Supervisor({
        upstreams: [fixture('hang', 'sup-hang-ping.mjs')],
        policy: aggregatorPolicy({ ...fast, probeIntervalMs: 300, probeTimeoutMs: 300 }, {}),
      });
      sup.on('state_changed', (e) => events.push(e));
      await sup.start();
      const pid = sup.get('hang')!.pid!;
      await waitFor(() => events.some((e) => e.from === 'recovering' && e.to === 'available'), {
        timeoutMs: 30_000,
      });
      expect(events.find((e) => e.to === 'recovering')!.error).toMatch(/liveness probe failed/);
      expect(sup.get('hang')!.lastErrorCode).toBe('MCPP_SUP_PROBE_FAILED');
      await waitFor(() => !isPidRunning(pid), { timeoutMs: 10_000, message: 'old process gone' });
      expect(sup.get('hang')!.pid).not.toBe(pid);
    },
    T,
  );

  it(
    'transport timeouts trip the rule (3 within 30 s); JSON-RPC errors do not',
    async () => {
      const events: StateChangedEvent[] = [];
      await using sup = new Supervisor({
        upstreams: [fixture('slowcalls', 'sup-basic.mjs')],
        policy: aggregatorPolicy(fast, {}),
      });
      sup.on('state_changed', (e) => events.push(e));
      await sup.start();
      for (let i = 0; i < 5; i++) {
        const err = await sup
          .request('slowcalls', { method: 'tools/call', params: { name: 'no-such-tool', arguments: {} } })
          .then(
            (r) => r,
            (e: unknown) => e,
          );
        expect(err).toBeDefined();
      }
      await sup.request('slowcalls', { method: 'nonexistent/method' }).catch(() => undefined);
      expect(sup.get('slowcalls')!.phase).toBe('available');
      const sleep = { method: 'tools/call', params: { name: 'sleep', arguments: { ms: 2_000 } } };
      for (let i = 0; i < 3; i++)
        await sup.request('slowcalls', sleep, { timeoutMs: 50 }).catch(() => undefined);
      expect(events.at(-1)).toMatchObject({ from: 'available', to: 'recovering' });
      await waitFor(() => sup.get('slowcalls')!.phase === 'available', { timeoutMs: 30_000 });
    },
    T,
  );
});

describe('stdio hygiene', () => {
  it(
    'a stderr flood (256 KiB per call) never blocks calls; the tail stays bounded',
    async () => {
      await using sup = new Supervisor({
        upstreams: [fixture('loud', 'sup-stderr-flood.mjs')],
        stderrTailBytes: 4096,
      });
      await sup.start();
      for (let i = 0; i < 24; i++) expect(textOf(await sup.request('loud', echo(`n${i}`)))).toBe(`n${i}`);
      const tail = sup.get('loud')!.stderrTail;
      expect(tail.length).toBeGreaterThan(0);
      expect(tail.join('\n').length).toBeLessThanOrEqual(4096 + 20);
    },
    T,
  );

  it(
    'banners and log lines on stdout do not fail the session; they are logged, rate-limited',
    async () => {
      const { logger, lines } = recordingLogger();
      await using sup = new Supervisor({ upstreams: [fixture('chatty', 'sup-banner.mjs')], logger });
      await sup.start();
      expect(sup.get('chatty')!.phase).toBe('available');
      for (let i = 0; i < 5; i++) expect(textOf(await sup.request('chatty', echo(`b${i}`)))).toBe(`b${i}`);
      const warnings = lines.filter((l) => l.msg?.includes('non-JSON-RPC'));
      expect(warnings.length).toBeGreaterThanOrEqual(1);
      expect(warnings.length).toBeLessThanOrEqual(2); // at most one per 10 s, however many lines
      expect(sup.get('chatty')!.stderrTail.some((l) => l.includes('Starting sup-banner'))).toBe(true);
      expect(
        lines.filter(
          (l) => l.level === 'info' && l.msg !== 'upstream available' && l.msg !== 'upstream connecting',
        ),
      ).toEqual([]);
    },
    T,
  );
});

describe('notifications and server→client requests', () => {
  it(
    'emits every upstream notification except progress; progress goes to onprogress',
    async () => {
      const notes: UpstreamNotificationEvent[] = [];
      await using sup = new Supervisor({ upstreams: [fixture('n', 'sup-basic.mjs')] });
      sup.on('notification', (n) => notes.push(n));
      await sup.start();
      await sup.request('n', { method: 'tools/call', params: { name: 'emit', arguments: {} } });
      await waitFor(() => notes.length >= 3, { timeoutMs: 10_000 });
      expect(notes.map((n) => n.method).sort()).toEqual([
        'notifications/message',
        'notifications/tools/list_changed',
        'notifications/x-custom',
      ]);
      expect(notes.find((n) => n.method === 'notifications/x-custom')).toEqual({
        upstream: 'n',
        method: 'notifications/x-custom',
        params: { n: 1 },
      });
      const progress: number[] = [];
      await sup.request(
        'n',
        { method: 'tools/call', params: { name: 'sleep', arguments: { ms: 100 } } },
        { onprogress: (p) => progress.push(p.progress) },
      );
      expect(progress).toEqual([1]);
      expect(notes.some((n) => n.method === 'notifications/progress')).toBe(false);
    },
    T,
  );

  it(
    'bridges sampling, elicitation and roots to the installed handler; without one the upstream gets an error',
    async () => {
      await using sup = new Supervisor({
        upstreams: [fixture('asks', 'sup-basic.mjs')],
        clientCapabilities: { sampling: {}, elicitation: {}, roots: {} },
      });
      await sup.start();
      const call = (name: string) =>
        sup.request('asks', { method: 'tools/call', params: { name, arguments: {} } });
      await expect(call('ask')).rejects.toMatchObject({ code: -32601 }); // no handler installed: method not found
      const seen: string[] = [];
      sup.setUpstreamRequestHandler(async (upstream, request) => {
        seen.push(`${upstream}:${request.method}`);
        if (request.method === 'sampling/createMessage') {
          return { role: 'assistant', model: 'm', content: { type: 'text', text: 'sampled!' } };
        }
        if (request.method === 'elicitation/create') return { action: 'accept', content: { n: 'ada' } };
        return { roots: [{ uri: 'file:///tmp', name: 'tmp' }] };
      });
      expect(textOf(await call('ask'))).toBe('sampled!');
      expect(textOf(await call('elicit'))).toContain('ada');
      expect(textOf(await call('roots'))).toContain('file:///tmp');
      expect(seen).toEqual(['asks:sampling/createMessage', 'asks:elicitation/create', 'asks:roots/list']);
    },
    T,
  );
});

describe('runtime layout changes', () => {
  it(
    'add, replace, remove and reconcile leave the other upstreams untouched',
    async () => {
      const layouts: unknown[] = [];
      await using sup = new Supervisor({ upstreams: [fixture('keep', 'sup-basic.mjs')] });
      sup.on('layout_changed', (c) => layouts.push(c));
      await sup.start();
      const keepPid = sup.get('keep')!.pid;
      await sup.add(fixture('extra', 'sup-basic.mjs'));
      expect(sup.get('extra')!.phase).toBe('available');
      const extraPid = sup.get('extra')!.pid!;
      await sup.replace(fixture('extra', 'sup-banner.mjs'));
      expect(sup.get('extra')!.serverInfo?.name).toBe('sup-banner');
      expect(isPidRunning(extraPid)).toBe(false);
      const change = await sup.reconcile([
        fixture('keep', 'sup-basic.mjs'),
        fixture('third', 'sup-basic.mjs'),
      ]);
      expect(change).toEqual({ added: ['third'], removed: ['extra'], replaced: [] });
      expect(sup.list().map((s) => s.name)).toEqual(['keep', 'third']);
      await sup.remove('third');
      expect(sup.get('keep')!.pid).toBe(keepPid);
      expect(sup.get('keep')!.generation).toBe(1);
      expect(layouts).toEqual([
        { added: ['extra'], removed: [], replaced: [] },
        { added: [], removed: [], replaced: ['extra'] },
        { added: ['third'], removed: ['extra'], replaced: [] },
        { added: [], removed: ['third'], replaced: [] },
      ]);
      await expect(sup.add(fixture('keep', 'sup-basic.mjs'))).rejects.toMatchObject({
        code: 'MCPP_NS_DUPLICATE_NAME',
      });
      const unknown = { code: 'MCPP_SUP_UNKNOWN_UPSTREAM' };
      await expect(sup.restart('nope')).rejects.toMatchObject(unknown);
      await expect(sup.reinitialize('nope')).rejects.toMatchObject(unknown);
      await expect(sup.remove('nope')).rejects.toMatchObject(unknown);
    },
    T,
  );

  it(
    'restart ends the old process tree and reconnects',
    async () => {
      await using sup = new Supervisor({ upstreams: [fixture('r', 'sup-basic.mjs')] });
      await sup.start();
      const pid = sup.get('r')!.pid!;
      await sup.restart('r');
      expect(sup.get('r')!.phase).toBe('available');
      expect(sup.get('r')!.pid).not.toBe(pid);
      expect(isPidRunning(pid)).toBe(false);
      await sup.notify('r', { method: 'notifications/x-test', params: { a: 1 } }); // roots/list_changed needs the roots capability
      await sup.reinitialize('r'); // a no-op outside failed
      expect(sup.get('r')!.generation).toBe(2);
      const last = sup.get('r')!.pid!;
      await sup.stop();
      expect(isPidRunning(last)).toBe(false);
      await expect(sup.request('r', echo('late'))).rejects.toMatchObject({ code: 'MCPP_SUP_STOPPED' });
      await expect(sup.start()).rejects.toMatchObject({ code: 'MCPP_SUP_STOPPED' });
    },
    T,
  );
});
