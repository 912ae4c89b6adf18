// C4 against the real `mcppipe up` process and a real stdio upstream: a deeply nested body is refused with 400
// before anything is parsed or forwarded, in every case the issue names, and the upstream never sees it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MCP_POST_HEADERS as base, fixturePath, openRawSession, startCli } from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';

const node = (script: string, ...args: string[]) =>
  [process.execPath, script, ...args].map((a) => JSON.stringify(a)).join(' ');
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const callWith = (id: number, argsJson: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","deep":${argsJson}}}}`;

describe('mcppipe up: the JSON nesting pre-scan (C4)', { timeout: 90_000 }, () => {
  it('C4: depth 5,000 without a session, on a 2025 session and as a 2026-07-28 request, and 4,200-deep tool arguments on a live session: 400 / -32700, the upstream untouched', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcppipe-c4-'));
    const log = join(dir, 'calls.log');
    try {
      await using cli = await startCli(['--stdio', node(fixturePath('sup-call-log.mjs'), '--log', log)]);
      const url = cli.url;
      const session = await openRawSession(url);
      const modern = {
        ...base,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      };
      const cases = [
        ['no session, depth 5,000', base, callWith(2, nested(5_000))],
        ['2025 session, depth 5,000', session, callWith(3, nested(5_000))],
        ['2026-07-28, depth 5,000', modern, callWith(4, nested(5_000))],
        ['2025 session, arguments 4,200 deep', session, callWith(5, nested(4_200))],
      ] as const;
      for (const [what, headers, body] of cases) {
        const started = performance.now();
        const res = await fetch(url, { method: 'POST', headers, body });
        const ms = performance.now() - started;
        expect(res.status, what).toBe(400);
        expect(await res.json(), what).toEqual({
          jsonrpc: '2.0',
          error: { code: -32700, message: 'Parse error: JSON nests deeper than 100 levels' },
          id: null,
        });
        expect(ms, what).toBeLessThan(2_000); // generous for a loaded machine
      }
      // the session still works, and a real call does reach the upstream (so the log would have shown the others)
      const ok = await fetch(url, { method: 'POST', headers: session, body: callWith(6, nested(3)) });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('"text":"x"');
      expect((await readFile(log, 'utf8')).split('\n').filter(Boolean)).toEqual(['echo']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
