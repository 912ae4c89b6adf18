import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpPipeError } from '@mcppipe/errors';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { URL_CREDENTIALS_PROBLEM } from './rules.js';
import { loadUpstreamsFile, parseUpstreamsToml, validateUpstreamsToml } from './upstreamsFile.js';

function failure(text: string): McpPipeError {
  try {
    parseUpstreamsToml(text, 'tunnel.toml');
  } catch (err) {
    if (err instanceof McpPipeError) return err;
    throw err;
  }
  throw new Error('expected parseUpstreamsToml to throw');
}

/** The problems of an invalid file (`data.errors`), after checking code and message shape. */
function problems(text: string): string[] {
  const err = failure(text);
  expect(err.code).toBe('MCPP_CFG_INVALID');
  const data = err.data as { errors: string[]; path: string };
  expect(data.path).toBe('tunnel.toml');
  expect(err.message).toBe(
    data.errors.length === 1
      ? `tunnel.toml is invalid: ${data.errors[0]}`
      : `tunnel.toml is invalid (${data.errors.length} problems):\n${data.errors.map((e) => `  - ${e}`).join('\n')}`,
  );
  return data.errors;
}

const NAME_RULE = 'must match ^[a-z][a-z0-9_-]{0,31}$, must not contain "__" and must not end with "_"';

describe('the TOML upstreams file (A8)', () => {
  it('the seed example: sections in alphabetical order, an aggregate layout', () => {
    const layout = parseUpstreamsToml(
      [
        '# tunnel.toml',
        '[upstreams.search]',
        'http = "http://127.0.0.1:3001"',
        '',
        '[upstreams.filesystem]',
        'stdio = "npx -y @modelcontextprotocol/server-filesystem ."',
      ].join('\n'),
    );
    expect(layout).toEqual({
      mode: 'aggregate',
      upstreams: [
        {
          name: 'filesystem',
          transport: 'stdio',
          command: 'npx -y @modelcontextprotocol/server-filesystem .',
        },
        { name: 'search', transport: 'http', url: 'http://127.0.0.1:3001' },
      ],
    });
  });

  it('one section collapses to the single-upstream path', () => {
    expect(parseUpstreamsToml('[upstreams.search]\nhttp = "http://127.0.0.1:3001"\n')).toEqual({
      mode: 'single',
      upstreams: [{ name: 'search', transport: 'http', url: 'http://127.0.0.1:3001' }],
    });
  });

  it('optional keys: env, cwd, headers, start_timeout_secs (→ ms), hub, protocol; stdio as an argv array', () => {
    const layout = parseUpstreamsToml(
      [
        '[upstreams.fs]',
        'stdio = ["node", "/opt/my server/index.js", "--root", "."]',
        'env = { LOG_LEVEL = "debug", TOKEN = "${FS_TOKEN}" }',
        'cwd = "/srv"',
        'start_timeout_secs = 90',
        'protocol = "modern"',
        '[upstreams.github]',
        'http = "https://api.githubcopilot.com/mcp/"',
        'headers = { Authorization = "Bearer ${GITHUB_TOKEN}" }',
        'start_timeout_secs = 2.5',
        'hub = false',
      ].join('\n'),
    );
    expect(layout.upstreams).toEqual([
      {
        name: 'fs',
        transport: 'stdio',
        command: 'node',
        args: ['/opt/my server/index.js', '--root', '.'],
        env: { LOG_LEVEL: 'debug', TOKEN: '${FS_TOKEN}' },
        cwd: '/srv',
        startTimeoutMs: 90_000,
        protocol: 'modern',
      },
      {
        name: 'github',
        transport: 'http',
        url: 'https://api.githubcopilot.com/mcp/',
        headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' },
        startTimeoutMs: 2500,
        hub: false,
      },
    ]);
  });

  it('a URL holding ${VAR} is kept raw', () => {
    expect(parseUpstreamsToml('[upstreams.a]\nhttp = "${BASE_URL}/mcp"\n').upstreams[0]).toEqual({
      name: 'a',
      transport: 'http',
      url: '${BASE_URL}/mcp',
    });
  });

  it('no sections (empty file, empty table): an error', () => {
    const message =
      'upstreams: no [upstreams.<name>] sections; add one per upstream, with http = "URL" or stdio = "command"';
    expect(problems('')).toEqual([message]);
    expect(problems('# nothing here\n')).toEqual([message]);
    expect(problems('[upstreams]\n')).toEqual([message]);
  });

  it('both or neither of http and stdio: an error', () => {
    expect(problems('[upstreams.search]\nhttp = "http://x"\nstdio = "cmd"\n')).toEqual([
      'upstreams.search: sets both "http" and "stdio"; set exactly one',
    ]);
    expect(problems('[upstreams.search]\nhub = true\n')).toEqual([
      'upstreams.search: sets neither "http" nor "stdio"; set exactly one',
    ]);
  });

  it('unknown keys are rejected with their path and a suggestion', () => {
    expect(problems('[upstreams.search]\nhtp = "http://x"\n')).toEqual([
      'upstreams.search: sets neither "http" nor "stdio"; set exactly one',
      'upstreams.search.htp: unknown key; did you mean "http"?',
    ]);
    expect(problems('[upstreams.search]\nhttp = "http://x"\nstart_timeout = 3\n')).toEqual([
      'upstreams.search.start_timeout: unknown key; did you mean "start_timeout_secs"?',
    ]);
    expect(problems('[upstreams.search]\nhttp = "http://x"\ncolour = "red"\n')).toEqual([
      'upstreams.search.colour: unknown key; expected one of "http", "stdio", "env", "cwd", "headers", "start_timeout_secs", "hub", "protocol"',
    ]);
    expect(problems('[upstream.search]\nhttp = "http://x"\n')).toEqual([
      'upstream: unknown key; did you mean "upstreams"?',
      'upstreams: no [upstreams.<name>] sections; add one per upstream, with http = "URL" or stdio = "command"',
    ]);
  });

  it('invalid names are rejected by the A6 rule', () => {
    expect(problems('[upstreams.Search]\nhttp = "http://x"\n')).toEqual([
      `upstreams.Search: upstream name "Search" is invalid: ${NAME_RULE}`,
    ]);
    expect(problems('[upstreams."my server"]\nstdio = "x"\n[upstreams.a__b]\nstdio = "x"\n')).toEqual([
      `upstreams.a__b: upstream name "a__b" is invalid: ${NAME_RULE}`,
      `upstreams["my server"]: upstream name "my server" is invalid: ${NAME_RULE}`,
    ]);
  });

  it('value rules, every problem listed', () => {
    expect(
      problems(
        [
          '[upstreams.fs]',
          'stdio = "x"',
          'headers = { A = "b" }',
          'env = { PORT = 3000 }',
          'start_timeout_secs = 0',
          'hub = "no"',
          'protocol = "v2"',
          '[upstreams.web]',
          'http = "http://x"',
          'cwd = "/tmp"',
          'env = "A=B"',
        ].join('\n'),
      ),
    ).toEqual([
      'upstreams.fs.headers: only valid with http (this upstream sets stdio)',
      'upstreams.fs.env.PORT: must be a string, not a number',
      'upstreams.fs.start_timeout_secs: must be a positive number of seconds',
      'upstreams.fs.hub: must be true or false, not a string',
      'upstreams.fs.protocol: must be one of "auto", "legacy", "modern"',
      'upstreams.web.cwd: only valid with stdio (this upstream sets http)',
      'upstreams.web.env: only valid with stdio (this upstream sets http)',
    ]);
    expect(
      problems(
        [
          '[upstreams.a]',
          'http = "ftp://x"',
          '[upstreams.b]',
          'http = "http://"',
          '[upstreams.c]',
          'stdio = []',
          '[upstreams.d]',
          'stdio = "  "',
          '[upstreams.e]',
          'http = 1',
          '[upstreams.f]',
          'stdio = "x"',
          'env = ["A"]',
          'cwd = ""',
          '[upstreams.g]',
          'http = "http://x"',
          'headers = { when = 1979-05-27T07:32:00Z }',
          '[upstreams.h]',
          'http = "http://user:${PW}@x/mcp"',
        ].join('\n'),
      ),
    ).toEqual([
      'upstreams.a.http: must be an http:// or https:// URL',
      'upstreams.b.http: must be a valid http:// or https:// URL',
      'upstreams.c.stdio: must be a command line string or a non-empty array of strings',
      'upstreams.d.stdio: must be a command line string or a non-empty array of strings',
      'upstreams.e.http: must be an http:// or https:// URL, not a number',
      'upstreams.f.env: must be a table of strings, not an array',
      'upstreams.f.cwd: must be a non-empty string',
      'upstreams.g.headers.when: must be a string, not a date',
      `upstreams.h.http: ${URL_CREDENTIALS_PROBLEM}`,
    ]);
    expect(URL_CREDENTIALS_PROBLEM).toContain('headers = { Authorization = "Bearer ${TOKEN}" }');
  });

  it('a section or the upstreams key of the wrong type', () => {
    expect(problems('upstreams = 1\n')).toEqual([
      'upstreams: must be a table of [upstreams.<name>] sections, not a number',
    ]);
    expect(problems('[upstreams]\nsearch = "http://x"\n')).toEqual([
      'upstreams.search: must be a table with http = "URL" or stdio = "command", not a string',
    ]);
  });

  it('syntax errors report line and column', () => {
    const err = failure('[upstreams.a]\nhttp = \n');
    expect(err.code).toBe('MCPP_CFG_SYNTAX');
    expect(err.message).toBe('tunnel.toml:2:8: invalid TOML: unexpected end of line');
    expect(err.data).toEqual({ path: 'tunnel.toml', line: 2, column: 8 });
    expect(failure('[upstreams.a]\nhttp = "x" y\n').message).toBe(
      'tunnel.toml:2:12: invalid TOML: unexpected "y"',
    );
    expect(failure('[upstreams.a\n').message).toBe('tunnel.toml:1:13: invalid TOML: unexpected end of line');
    expect(failure('[upstreams.a]\nhttp = "x"\nhttp = "y"\n').message).toBe(
      "tunnel.toml:3:1: invalid TOML: cannot redefine existing key 'upstreams.a.http'",
    );
    expect(failure('[upstreams.a]\nhttp = [1,').message).toBe(
      'tunnel.toml:2:11: invalid TOML: unexpected end of file',
    );
  });

  it('validateUpstreamsToml is pure and reports instead of throwing', () => {
    expect(validateUpstreamsToml({ upstreams: { a: { stdio: 'x' } } })).toEqual({
      ok: true,
      config: { mode: 'single', upstreams: [{ name: 'a', transport: 'stdio', command: 'x' }] },
      warnings: [],
    });
    expect(validateUpstreamsToml([])).toEqual({
      ok: false,
      errors: ['(root): must be a table, not an array'],
      warnings: [],
    });
  });
});

describe('loadUpstreamsFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcppipe-config-toml-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file (BOM tolerated)', async () => {
    const file = join(dir, 'tunnel.toml');
    writeFileSync(file, '\uFEFF[upstreams.search]\nhttp = "http://127.0.0.1:3001"\n');
    await expect(loadUpstreamsFile(file)).resolves.toEqual({
      mode: 'single',
      upstreams: [{ name: 'search', transport: 'http', url: 'http://127.0.0.1:3001' }],
    });
  });

  it('a missing file is MCPP_CFG_READ_FAILED naming it', async () => {
    const file = join(dir, 'missing.toml');
    await expect(loadUpstreamsFile(file)).rejects.toMatchObject({
      code: 'MCPP_CFG_READ_FAILED',
      message: `cannot read ${file}: no such file (ENOENT)`,
      data: { path: file },
    });
    await expect(loadUpstreamsFile(dir)).rejects.toMatchObject({
      code: 'MCPP_CFG_READ_FAILED',
      message: `cannot read ${dir}: it is a directory (EISDIR)`,
    });
  });

  it('messages carry the file name; warnings go to the logger', async () => {
    const file = join(dir, 'bad.toml');
    writeFileSync(file, '[upstreams.a]\nhtp = "x"\n');
    await expect(loadUpstreamsFile(file)).rejects.toMatchObject({
      code: 'MCPP_CFG_INVALID',
      data: { path: file },
    });
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    writeFileSync(file, '[upstreams.a]\nhttp = "http://x"\n');
    await loadUpstreamsFile(file, { logger });
    expect(logger.warn).not.toHaveBeenCalled();
  });
});

describe('[policy] (issue 17, P1-P3)', () => {
  const head = '[upstreams.memory]\nstdio = "x"\n\n';
  it('[policy], [[policy.rules]] and [[policy.limits]] become the layout policies', () => {
    const layout = parseUpstreamsToml(
      `${head}[policy]\ndefault = "allow"\n\n[[policy.rules]]\nmatch = "memory__delete_*"\naction = "deny"\n\n[[policy.limits]]\nscope = "caller+tool"\nmatch = "memory__search_nodes"\nrate = "10/min"\nburst = 5\n`,
    );
    expect(layout.policies).toEqual({
      default: 'allow',
      rules: [{ match: 'memory__delete_*', action: 'deny' }],
      limits: [{ scope: 'caller+tool', match: 'memory__search_nodes', rate: '10/min', burst: 5 }],
    });
  });

  it('a broken [policy] table is rejected with the path of the problem', () => {
    expect(() =>
      parseUpstreamsToml(`${head}[[policy.rules]]\nmatch = "a b"\naction = "drop"\n`, 't.toml'),
    ).toThrow(/policy\.rules\[0\]\.match: "a b" has whitespace/);
    const result = validateUpstreamsToml({
      upstreams: { memory: { stdio: 'x' } },
      policy: { rules: [{ match: 'a', action: 'drop' }] },
    });
    expect(!result.ok && result.errors).toEqual([
      'policy.rules[0].action: must be "allow" or "deny", got "drop"',
    ]);
  });
});
