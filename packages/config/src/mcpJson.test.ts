import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpPipeError } from '@mcppipe/errors';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadMcpJson, parseMcpJson, validateMcpJson } from './mcpJson.js';
import { URL_CREDENTIALS_PROBLEM } from './rules.js';

function problems(doc: unknown): string[] {
  const result = validateMcpJson(doc);
  if (result.ok) throw new Error('expected validateMcpJson to fail');
  return result.errors;
}

const NAME_RULE = 'must match ^[a-z][a-z0-9_-]{0,31}$, must not contain "__" and must not end with "_"';

describe('mcp.json (seed 001)', () => {
  it('the Claude Desktop / Claude Code shape, plus "hub": false; servers sorted by name', () => {
    const layout = parseMcpJson(
      JSON.stringify({
        mcpServers: {
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
          github: {
            type: 'http',
            url: 'https://api.githubcopilot.com/mcp/',
            headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' },
            hub: false,
          },
          files: { command: '/opt/My Tools/fs-server', env: { ROOT: '${HOME}/docs' }, cwd: '/srv' },
          legacy: { type: 'sse', url: 'http://127.0.0.1:9000/sse' },
          tuned: { type: 'stdio', command: 'srv', protocol: 'modern', startTimeoutSecs: 120 },
        },
      }),
    );
    expect(layout).toEqual({
      mode: 'aggregate',
      upstreams: [
        {
          name: 'files',
          transport: 'stdio',
          command: '/opt/My Tools/fs-server',
          args: [],
          env: { ROOT: '${HOME}/docs' },
          cwd: '/srv',
        },
        {
          name: 'github',
          transport: 'http',
          url: 'https://api.githubcopilot.com/mcp/',
          headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' },
          hub: false,
        },
        { name: 'legacy', transport: 'http', url: 'http://127.0.0.1:9000/sse', protocol: 'legacy' },
        {
          name: 'memory',
          transport: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
        },
        {
          name: 'tuned',
          transport: 'stdio',
          command: 'srv',
          args: [],
          protocol: 'modern',
          startTimeoutMs: 120_000,
        },
      ],
    });
  });

  it('one server is still an aggregate: adding a second never renames tools at /mcp', () => {
    expect(parseMcpJson('{"mcpServers":{"a":{"url":"http://x"}}}').mode).toBe('aggregate');
  });

  it('explicit "protocol" wins over the "sse" hint', () => {
    expect(
      parseMcpJson('{"mcpServers":{"a":{"type":"sse","url":"http://x","protocol":"auto"}}}').upstreams[0],
    ).toMatchObject({ protocol: 'auto' });
  });

  it('path-prefixed messages for every rule', () => {
    expect(problems({ mcpServers: { github: { command: '' } } })).toEqual([
      'mcpServers.github.command: must be a non-empty string',
    ]);
    expect(problems({ mcpServers: { github: { command: 7 } } })).toEqual([
      'mcpServers.github.command: must be a non-empty string, not a number',
    ]);
    expect(problems({ mcpServers: { github: { comand: 'x' } } })).toEqual([
      'mcpServers.github: sets neither "command" (stdio) nor "url" (HTTP); set exactly one',
      'mcpServers.github.comand: unknown key; did you mean "command"?',
    ]);
    expect(problems({ mcpServers: { a: { command: 'x', url: 'http://x' } } })).toEqual([
      'mcpServers.a: sets both "command" and "url"; set exactly one',
    ]);
    expect(
      problems({
        mcpServers: {
          a: {
            command: 'x',
            args: ['a', 1],
            env: { P: 1 },
            headers: {},
            type: 'sse',
            hub: 0,
            startTimeoutSecs: -1,
          },
        },
      }),
    ).toEqual([
      'mcpServers.a.args[1]: must be a string, not a number',
      'mcpServers.a.env.P: must be a string, not a number',
      'mcpServers.a.headers: only valid with "url" (this server sets "command")',
      'mcpServers.a.hub: must be true or false, not a number',
      'mcpServers.a.startTimeoutSecs: must be a positive number of seconds',
      'mcpServers.a.type: "sse" is for "url" servers; this server sets "command"',
    ]);
    expect(
      problems({
        mcpServers: { b: { url: 'ws://x', env: {}, cwd: '/', args: 'x', type: 'websocket', protocol: 1 } },
      }),
    ).toEqual([
      'mcpServers.b.url: must be an http:// or https:// URL',
      'mcpServers.b.env: only valid with "command" (this server sets "url")',
      'mcpServers.b.cwd: only valid with "command" (this server sets "url")',
      'mcpServers.b.args: only valid with "command" (this server sets "url")',
      'mcpServers.b.type: must be one of "stdio", "http", "streamable-http", "sse"',
      'mcpServers.b.protocol: must be one of "auto", "legacy", "modern"',
    ]);
    expect(problems({ mcpServers: { d: { url: 'https://me:pw@x/mcp' } } })).toEqual([
      `mcpServers.d.url: ${URL_CREDENTIALS_PROBLEM}`,
    ]);
    expect(problems({ mcpServers: { c: { url: 'https://x', type: 'stdio', headers: [] } } })).toEqual([
      'mcpServers.c.headers: must be an object of strings, not an array',
      'mcpServers.c.type: "stdio" is for "command" servers; this server sets "url"',
    ]);
    expect(problems({ mcpServers: { d: { command: 'x', args: {} } } })).toEqual([
      'mcpServers.d.args: must be an array of strings, not an object',
    ]);
  });

  it('names are validated by the A6 rule', () => {
    expect(
      problems({ mcpServers: { GitHub: { url: 'https://x' }, 'my server': { url: 'https://x' } } }),
    ).toEqual([
      `mcpServers.GitHub: upstream name "GitHub" is invalid: ${NAME_RULE}`,
      `mcpServers["my server"]: upstream name "my server" is invalid: ${NAME_RULE}`,
    ]);
  });

  it('document shape errors', () => {
    expect(problems([])).toEqual(['(root): must be an object with "mcpServers", not an array']);
    expect(problems({})).toEqual([
      'mcpServers: missing; add "mcpServers": { "<name>": { "command": "…" } or { "url": "…" } }',
    ]);
    expect(problems({ mcpServers: {} })).toEqual([
      'mcpServers: has no servers; add at least one "<name>": { "command": "…" } or { "url": "…" }',
    ]);
    expect(problems({ mcpServers: [] })).toEqual([
      'mcpServers: must be an object mapping server names to servers, not an array',
    ]);
    expect(problems({ mcpServers: { a: 1 } })).toEqual([
      'mcpServers.a: must be an object with "command" or "url", not a number',
    ]);
  });

  it('unknown top-level keys are warnings (a client settings file may be reused)', () => {
    expect(
      validateMcpJson({
        $schema: 'x',
        globalShortcut: 'Ctrl+Space',
        mcpServer: {},
        mcpServers: { a: { url: 'http://x' } },
      }),
    ).toEqual({
      ok: true,
      config: { mode: 'aggregate', upstreams: [{ name: 'a', transport: 'http', url: 'http://x' }] },
      warnings: [
        'globalShortcut: ignored (mcppipe reads only "mcpServers" and "policies")',
        'mcpServer: unknown key, ignored; did you mean "mcpServers"?',
      ],
    });
  });

  it('MCPP_CFG_INVALID lists all problems in data.errors; warnings ride along', () => {
    let err: unknown;
    try {
      parseMcpJson('{"extra": 1, "mcpServers": {"a": {}, "B": {"url": "http://x"}}}', '/config/mcp.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(McpPipeError);
    expect((err as McpPipeError).code).toBe('MCPP_CFG_INVALID');
    expect((err as McpPipeError).message).toBe(
      [
        '/config/mcp.json is invalid (2 problems):',
        `  - mcpServers.B: upstream name "B" is invalid: ${NAME_RULE}`,
        '  - mcpServers.a: sets neither "command" (stdio) nor "url" (HTTP); set exactly one',
      ].join('\n'),
    );
    expect((err as McpPipeError).data).toEqual({
      path: '/config/mcp.json',
      errors: [
        `mcpServers.B: upstream name "B" is invalid: ${NAME_RULE}`,
        'mcpServers.a: sets neither "command" (stdio) nor "url" (HTTP); set exactly one',
      ],
      warnings: ['extra: ignored (mcppipe reads only "mcpServers" and "policies")'],
    });
  });

  it('syntax errors carry line and column, never the document', () => {
    const text =
      '{\n  "mcpServers": {\n    "a": { "command": "x", "env": { "TOKEN": "s3cret" } }\n    "b": 1\n  }\n}';
    expect(() => parseMcpJson(text)).toThrowError(
      expect.objectContaining({
        code: 'MCPP_CFG_SYNTAX',
        message: 'mcp.json:4:5: invalid JSON: expected "," or "}" after a property value, found "\\""',
        data: { path: 'mcp.json', line: 4, column: 5 },
      }),
    );
  });

  it('a "__proto__" env key stays an ordinary entry', () => {
    const layout = parseMcpJson('{"mcpServers":{"a":{"command":"x","env":{"__proto__":"v","B":"w"}}}}');
    const env = (layout.upstreams[0] as { env: Record<string, string> }).env;
    expect(Object.getPrototypeOf(env)).toBe(Object.prototype);
    expect(Object.entries(env)).toEqual([
      ['__proto__', 'v'],
      ['B', 'w'],
    ]);
  });

  it('comments and trailing commas are accepted', () => {
    const text =
      '{\n  // the gateway\'s servers\n  "mcpServers": { /* one */ "a": { "url": "http://x", }, },\n}\n';
    expect(parseMcpJson(text).upstreams).toEqual([{ name: 'a', transport: 'http', url: 'http://x' }]);
  });
});

describe('duplicate keys (G1)', () => {
  it('G1: rejects a server key given twice, naming both JSON paths and lines; JSON.parse would keep the last', () => {
    const text = [
      '{',
      '  "mcpServers": {',
      '    "memory": { "command": "a" },',
      '    "other": { "url": "https://x.example/mcp", "headers": { "A": "1", "A": "2" } },',
      '    "memory": { "command": "b" }',
      '  }',
      '}',
    ].join('\n');
    expect(Object.keys((JSON.parse(text) as { mcpServers: object }).mcpServers)).toEqual(['memory', 'other']);
    let err: McpPipeError | undefined;
    try {
      parseMcpJson(text, '/etc/mcp.json');
    } catch (e) {
      err = e as McpPipeError;
    }
    expect(err?.code).toBe('MCPP_CFG_INVALID');
    expect((err?.data as { errors: string[] }).errors).toEqual([
      'mcpServers.other.headers.A: duplicate key: mcpServers.other.headers.A at line 4 and mcpServers.other.headers.A at line 4; JSON would silently keep only the last, so remove or rename one',
      'mcpServers.memory: duplicate key: mcpServers.memory at line 3 and mcpServers.memory at line 5; JSON would silently keep only the last, so remove or rename one',
    ]);
  });

  it('accepts the same key in different objects and inside arrays', () => {
    const layout = parseMcpJson(
      '{ "mcpServers": { "a": { "command": "x", "args": ["a", "a"] }, "b": { "command": "x", "env": { "a": "1" } } } }',
    );
    expect(layout.upstreams.map((u) => u.name)).toEqual(['a', 'b']);
  });
});

describe('loadMcpJson', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcppipe-config-json-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the file and sends warnings to the logger', async () => {
    const file = join(dir, 'mcp.json');
    writeFileSync(file, '{"theme": "dark", "mcpServers": {"a": {"url": "http://x"}}}');
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    await expect(loadMcpJson(file, { logger })).resolves.toMatchObject({ upstreams: [{ name: 'a' }] });
    expect(logger.warn).toHaveBeenCalledWith(
      { path: file },
      'theme: ignored (mcppipe reads only "mcpServers" and "policies")',
    );
  });

  it('a missing file is MCPP_CFG_READ_FAILED', async () => {
    await expect(loadMcpJson(join(dir, 'nope.json'))).rejects.toMatchObject({
      code: 'MCPP_CFG_READ_FAILED',
      message: `cannot read ${join(dir, 'nope.json')}: no such file (ENOENT)`,
    });
  });
});

describe('policies (issue 17, P1-P3)', () => {
  it('a valid policies section rides along in the layout', () => {
    const policies = { default: 'deny', rules: [{ match: 'memory__*', action: 'allow' }] };
    const result = validateMcpJson({ mcpServers: { memory: { command: 'x' } }, policies });
    expect(result).toEqual({
      ok: true,
      config: {
        mode: 'aggregate',
        upstreams: [{ name: 'memory', transport: 'stdio', command: 'x', args: [] }],
        policies,
      },
      warnings: [],
    });
  });

  it('a broken policies section is an error naming its path', () => {
    const result = validateMcpJson({
      mcpServers: { memory: { command: 'x' } },
      policies: { rules: [{ match: 'x[', action: 'deny' }], limits: [{ scope: 'caller', rate: '10/day' }] },
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toEqual([
      expect.stringMatching(/^policies\.rules\[0\]\.match: "x\[" has whitespace, a bracket/),
      expect.stringMatching(/^policies\.limits\[0\]\.rate: must be "<n>\/<s\|min\|h>"/),
    ]);
  });
});
