// `mcppipe up` as a child process over real upstreams (stdio and Streamable HTTP) with real SDK clients of
// both eras: merged lists, routing, wrapped resources and templates, prompts, completion, progress,
// cancellation, colliding ids, A13 isolation with fail-fast and recovery, and a clean stop.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  MCP_POST_HEADERS,
  fixturePath,
  freePort,
  isPidAlive,
  openRawSession,
  referenceServerPath,
  startCli,
  waitFor,
  sseJson,
} from '@mcppipe/test-utils';
import type { RunningCli } from '@mcppipe/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const node = (script: string, ...args: string[]) =>
  [process.execPath, script, ...args].map((a) => JSON.stringify(a)).join(' ');
const text = (r: unknown) =>
  ((r as { content?: { type: string; text?: string }[] }).content ?? []).find((c) => c.type === 'text')
    ?.text ?? '';

/** Every descendant pid of `pid` (from /proc). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let kids: number[] = [];
    try {
      kids = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      return;
    }
    for (const k of kids) {
      out.push(k);
      walk(k);
    }
  };
  walk(pid);
  return out;
}

let cli: RunningCli;
let web: ChildProcess;
const probeLog = join(mkdtempSync(join(tmpdir(), 'mcppipe-e2e-')), 'probe.log');

beforeAll(async () => {
  const port = await freePort();
  web = spawn(
    process.execPath,
    ['--import', fixturePath('loopback-preload.mjs'), referenceServerPath('everything'), 'streamableHttp'],
    {
      env: { ...process.env, PORT: String(port) },
      stdio: 'ignore',
    },
  );
  const webUrl = `http://127.0.0.1:${port}/mcp`;
  await waitFor(async () => (await fetch(webUrl, { method: 'GET' }).catch(() => undefined)) !== undefined, {
    timeoutMs: 30_000,
    message: 'server-everything over HTTP',
  });
  cli = await startCli(
    [
      '--stdio',
      `everything=${node(referenceServerPath('everything'))}`,
      // children inherit only HOME, PATH, … (E8): a variable is passed through on purpose, here with `env`
      '--stdio',
      `memory=env MEMORY_FILE_PATH=\${MEMORY_FILE_PATH} ${node(referenceServerPath('memory'))}`,
      '--stdio',
      `probe=env PROBE_LOG=\${PROBE_LOG} ${node(fixturePath('e2e-probe.mjs'))}`,
      '--upstream',
      `web=${webUrl}`,
    ],
    {
      env: {
        PROBE_LOG: probeLog,
        MEMORY_FILE_PATH: join(tmpdir(), `mcppipe-e2e-memory-${process.pid}.jsonl`),
      },
    },
  );
});

afterAll(async () => {
  await cli?.stop();
  web?.kill('SIGKILL');
});

async function modernClient(): Promise<Client> {
  const c = new Client({ name: 'e2e-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await c.connect(new StreamableHTTPClientTransport(cli.url));
  return c;
}
async function legacyClient(): Promise<V1Client> {
  const c = new V1Client({ name: 'e2e-v1', version: '1' });
  await c.connect(new V1Transport(cli.url));
  return c;
}

describe('mcppipe up over real upstreams', () => {
  it('merges tools/list from stdio and HTTP upstreams, namespaced and ordered by upstream (A1, A3)', async () => {
    const c = await legacyClient();
    const { tools } = await c.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['everything__echo', 'memory__read_graph', 'probe__pid', 'web__echo'])
      expect(names).toContain(n);
    const ups = names.map((n) => n.slice(0, n.indexOf('__')));
    expect(ups).toEqual([...ups].sort());
    expect(new Set(ups)).toEqual(new Set(['everything', 'memory', 'probe', 'web']));
    await c.close();
  });

  it('routes calls for both eras to the upstream in the prefix (A4)', async () => {
    const v2 = await modernClient();
    expect(v2.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(text(await v2.callTool({ name: 'everything__echo', arguments: { message: 'hi' } }))).toBe(
      'Echo: hi',
    );
    expect(text(await v2.callTool({ name: 'web__echo', arguments: { message: 'over http' } }))).toBe(
      'Echo: over http',
    );
    const v1 = await legacyClient();
    await v1.callTool({
      name: 'memory__create_entities',
      arguments: { entities: [{ name: 'mcppipe', entityType: 'tool', observations: ['aggregates'] }] },
    });
    expect(text(await v1.callTool({ name: 'memory__read_graph', arguments: {} }))).toContain('"mcppipe"');
    await v1.callTool({ name: 'nope__x', arguments: {} }).then(
      () => expect.unreachable(),
      (err: { code?: number; message: string }) => {
        expect(err.code).toBe(-32602);
        expect(err.message).toContain('nope__x');
      },
    );
    await v1.close();
    await v2.close();
  });

  it('wraps resource URIs and templates so reads route back (A2)', async () => {
    const c = await legacyClient();
    const { resources } = await c.listResources();
    const doc = resources.find((r) => r.uri.startsWith('mcppipe://everything/'));
    expect(doc).toBeDefined();
    const read = await c.readResource({ uri: doc!.uri });
    expect(read.contents.length).toBeGreaterThan(0);
    const { resourceTemplates } = await c.listResourceTemplates();
    const tpl = resourceTemplates.find((t) =>
      t.uriTemplate.includes('demo://resource/dynamic/text/{resourceId}'),
    );
    expect(tpl).toBeDefined();
    const expanded = tpl!.uriTemplate.replace('{resourceId}', '7');
    const dyn = await c.readResource({ uri: expanded });
    expect(JSON.stringify(dyn.contents)).toMatch(/7/);
    await c.close();
  });

  it('gets prompts and completes prompt arguments through the prefix', async () => {
    const c = await legacyClient();
    const { prompts } = await c.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('everything__simple-prompt');
    const p = await c.getPrompt({ name: 'everything__simple-prompt' });
    expect(p.messages.length).toBeGreaterThan(0);
    const done = await c.complete({
      ref: { type: 'ref/prompt', name: 'everything__completable-prompt' },
      argument: { name: 'department', value: 'Eng' },
    });
    expect(done.completion.values).toEqual(['Engineering']);
    await c.close();
  });

  it('delivers progress under the agent token', async () => {
    const c = await legacyClient();
    const seen: number[] = [];
    const r = await c.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 1, steps: 4 } },
      undefined,
      { onprogress: (p) => seen.push(p.progress), timeout: 30_000 },
    );
    expect(text(r)).toContain('Long running operation completed');
    expect(seen.length).toBeGreaterThanOrEqual(3); // the SDK client may drop the last one (probe §6.1)
    expect(seen.slice(0, 3)).toEqual([1, 2, 3]);
    await c.close();
  });

  it('forwards cancellation to the owning upstream at once', async () => {
    const c = await modernClient();
    const ac = new AbortController();
    const call = c.callTool(
      { name: 'probe__wait', arguments: { ms: 30_000, tag: 'e2e-cancel' } },
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 300);
    await expect(call).rejects.toBeDefined();
    await waitFor(
      () => {
        try {
          return readFileSync(probeLog, 'utf8').includes('cancelled e2e-cancel');
        } catch {
          return false;
        }
      },
      { timeoutMs: 10_000, message: 'the upstream to see the cancellation' },
    );
    await c.close();
  });

  it('keeps two agents apart when both use JSON-RPC id 1', async () => {
    const open = async () => (await openRawSession(cli.url, { clientName: 'raw' }))['mcp-session-id'];
    const sessions = await Promise.all([open(), open(), open(), open()]);
    const call = async (sid: string, params: Record<string, unknown>) => {
      const res = await fetch(cli.url, {
        method: 'POST',
        headers: { ...MCP_POST_HEADERS, 'mcp-session-id': sid },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
      });
      const body = await res.text();
      return (body.startsWith('{') ? JSON.parse(body) : (sseJson(body)[0] ?? {})) as {
        id: number;
        result: { content: { text: string }[] };
      };
    };
    // every agent sends id 1 at the same time; the slow ones are still in flight when the fast ones answer
    const results = await Promise.all([
      call(sessions[0]!, { name: 'probe__wait', arguments: { ms: 300, tag: 'A' } }),
      call(sessions[1]!, { name: 'probe__echo', arguments: { text: 'from B' } }),
      call(sessions[2]!, { name: 'everything__echo', arguments: { message: 'from C' } }),
      call(sessions[3]!, { name: 'probe__echo', arguments: { text: 'from D' } }),
    ]);
    expect(results.map((r) => r.id)).toEqual([1, 1, 1, 1]);
    expect(results.map((r) => r.result.content[0]!.text)).toEqual([
      'waited',
      'from B',
      'Echo: from C',
      'from D',
    ]);
  });

  it('survives SIGKILL of one upstream: others answer, its calls fail fast with -32000, then it recovers (A12, A13)', async () => {
    const c = await legacyClient();
    const oldPid = Number(text(await c.callTool({ name: 'probe__pid', arguments: {} })));
    expect(isPidAlive(oldPid)).toBe(true);
    process.kill(oldPid, 'SIGKILL');
    const failure = await waitFor(
      async () => {
        const t0 = Date.now();
        try {
          await c.callTool({ name: 'probe__pid', arguments: {} });
          return undefined;
        } catch (err) {
          return {
            err: err as { code?: number; data?: { upstream?: string; phase?: string } },
            ms: Date.now() - t0,
          };
        }
      },
      { timeoutMs: 10_000, intervalMs: 5, message: 'a fail-fast error from the killed upstream' },
    );
    expect(failure.err.code).toBe(-32000);
    expect(failure.err.data?.upstream).toBe('probe');
    expect(failure.ms).toBeLessThan(1000);
    for (let i = 0; i < 10; i++)
      expect(text(await c.callTool({ name: 'everything__echo', arguments: { message: `still ${i}` } }))).toBe(
        `Echo: still ${i}`,
      );
    const newPid = await waitFor(
      async () => {
        try {
          return Number(text(await c.callTool({ name: 'probe__pid', arguments: {} })));
        } catch {
          return undefined;
        }
      },
      { timeoutMs: 60_000, intervalMs: 100, message: 'the killed upstream to recover' },
    );
    expect(newPid).not.toBe(oldPid);
    await c.close();
  });

  it('leaves no child process after SIGTERM', async () => {
    const kids = descendants(cli.proc.pid!);
    expect(kids.length).toBeGreaterThanOrEqual(3); // everything, memory, probe (web is HTTP)
    const code = await cli.stop();
    expect(code).toBe(0);
    await waitFor(() => kids.every((k) => !isPidAlive(k)), {
      timeoutMs: 15_000,
      message: 'every child to exit',
    });
  });
});
