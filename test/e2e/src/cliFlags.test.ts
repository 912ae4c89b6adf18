// The A7/A8 flag rules exactly as a user sees them: message on stderr and exit code 2.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath, freePort, runCli, startCli } from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'mcppipe-flags-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('mcppipe up: source flag errors (A7, A8)', () => {
  it('one bare --upstream plus one bare --stdio is ambiguous', async () => {
    const r = await runCli(['up', '--upstream', 'http://127.0.0.1:1/mcp', '--stdio', 'node server.js']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mcppipe: .*ambiguous/m);
    expect(r.stderr).toContain('--upstream');
    expect(r.stderr).toContain('=');
  });

  it('two sources with a bare one name the bare one', async () => {
    const r = await runCli(['up', '--stdio', 'a=node a.js', '--stdio', 'node b.js']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mcppipe: /m);
    expect(r.stderr).toContain('node b.js');
  });

  it("accepts the supervisor's own MCPPIPE_* variables (policy knobs, a parent supervisor's marks)", async () => {
    // marks of a LIVE parent supervisor (this test process, its real start time): marks of a dead one would make
    // the CLI an orphan that any mcppipe starting at the same time (another suite) rightly reaps
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const env = {
      MCPPIPE_UPSTREAM_MAX_ATTEMPTS: '3',
      MCPPIPE_UPSTREAM_FAILED_AFTER_SECS: '60',
      MCPPIPE_SUPERVISOR_ID: '8b1e2f0a-0000-4000-8000-000000000000',
      MCPPIPE_SUPERVISOR_PID: String(process.pid),
      MCPPIPE_SUPERVISOR_START: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!,
      MCPPIPE_SUPERVISOR_CHILD: '1',
    };
    // the invalid name is reported: the variables got past yargs' strict parsing
    const r = await runCli(['up', '--stdio', 'Search=node a.js', '--stdio', 'b=node b.js'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('Unknown argument');
    expect(r.stderr).toContain('"Search"');
  });

  it('an invalid upstream name quotes the name and the rule', async () => {
    const r = await runCli(['up', '--stdio', 'Search=node a.js', '--stdio', 'b=node b.js']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"Search"');
    expect(r.stderr).toContain('^[a-z][a-z0-9_-]{0,31}$');
  });

  it('a duplicate name is rejected loudly', async () => {
    const r = await runCli(['up', '--stdio', 'a=node a.js', '--upstream', 'a=http://127.0.0.1:1/mcp']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/used 2 times|duplicate/i);
    expect(r.stderr).toContain('"a"');
  });

  it('--upstreams-file conflicts with --upstream/--stdio', async () => {
    const toml = file('ok.toml', '[upstreams.a]\nstdio = "node a.js"\n');
    const r = await runCli(['up', '--upstreams-file', toml, '--stdio', 'node b.js']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--upstreams-file');
  });

  it('a TOML section with both http and stdio is an error naming the section', async () => {
    const toml = file('both.toml', '[upstreams.a]\nstdio = "node a.js"\nhttp = "http://127.0.0.1:1/mcp"\n');
    const r = await runCli(['up', '--upstreams-file', toml]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('upstreams.a');
  });

  it('a TOML file with no sections is an error', async () => {
    const toml = file('empty.toml', '# nothing here\n');
    const r = await runCli(['up', '--upstreams-file', toml]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no \[upstreams|no upstreams|section/i);
  });

  it('a TOML file with two problems prints each problem exactly once (issue 13.7)', async () => {
    const toml = file(
      'two.toml',
      '[upstreams.A]\nstdio = "node a.js"\n[upstreams.b]\nstdio = "node b.js"\nhttp = "http://127.0.0.1:1/mcp"\n',
    );
    const r = await runCli(['up', '--upstreams-file', toml]);
    expect(r.code).toBe(2);
    const count = (needle: string) => r.stderr.split('\n').filter((l) => l.includes(needle)).length;
    expect(r.stderr).toContain('is invalid (2 problems):');
    expect(count('upstreams.A: upstream name "A" is invalid')).toBe(1);
    expect(count('upstreams.b: sets both "http" and "stdio"')).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('  - '))).toHaveLength(2);
  });

  it('a TOML syntax error reports the line', async () => {
    const toml = file('bad.toml', '[upstreams.a]\nstdio = "node a.js\n');
    const r = await runCli(['up', '--upstreams-file', toml]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.toml:2:\d+: invalid TOML/);
  });

  it('a source flag without a value is a usage error, not a fall-back to auto-detection', async () => {
    const r = await runCli(['up', '--stdio'], { env: { HOME: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('mcppipe: Not enough arguments following: stdio');
  });

  it('a bad --port is a usage error', async () => {
    const r = await runCli(['up', '--stdio', 'node a.js', '--port', '70000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--port must be an integer 0-65535');
  });

  it('a bad --port says what was given, not NaN (issue 13.11)', async () => {
    const r = await runCli(['up', '--stdio', 'node a.js', '--port', 'abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'mcppipe: --port must be an integer 0-65535, got "abc" (from --port or MCPPIPE_PORT)',
    );
    expect(r.stderr).not.toContain('NaN');
  });

  it('a single-value flag given twice says so, instead of reading one value "19100 19101"', async () => {
    for (const [flag, given] of [
      ['--port', ['--port', '19100', '--port', '19101']],
      ['--host', ['--port', '0', '--host', '127.0.0.1', '--host', '127.0.0.2']],
    ] as const) {
      const r = await runCli(['up', '--stdio', 'node a.js', ...given], { timeoutMs: 10_000 });
      expect(r.code, flag).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(`mcppipe: ${flag} was given twice: it takes one value`);
    }
  });

  it('a mistyped flag suggests the flag it is close to (issue 13.11)', async () => {
    const r = await runCli(['up', '--stdoi', 'node a.js']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('mcppipe: Unknown argument: stdoi (did you mean --stdio?)');
  });
});

describe('mcppipe up: MCPPIPE_* variables (issue 13.10)', () => {
  it('ignores variables that name no flag, still reads MCPPIPE_PORT, and keeps the command line strict', async () => {
    const port = await freePort();
    const env = { MCPPIPE_CMD: 'x', MCPPIPE_WHATEVER: '1', MCPPIPE_PORT: String(port) };
    const command = [process.execPath, fixturePath('sup-basic.mjs')].map((a) => JSON.stringify(a)).join(' ');
    await using cli = await startCli(['--stdio', command], { env });
    expect(cli.url.port).toBe(String(port));
    expect(cli.stderr()).not.toContain('Unknown argument');

    const typo = await runCli(['up', '--stdio', 'node a.js', '--whatever', '1'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('mcppipe: Unknown argument: whatever');
  });

  it('a flag on the command line wins over its variable', async () => {
    const port = await freePort();
    const r = await runCli(['up', '--stdio', 'node a.js', '--port', 'abc'], {
      env: { MCPPIPE_PORT: String(port) },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('got "abc"');
  });
});
