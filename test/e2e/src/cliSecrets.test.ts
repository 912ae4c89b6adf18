// docs/cli.md: an upstream URL's query and credentials are never shown (logs, errors, the table); a URL with
// `user:pw@` is refused up front (exit 2) with the header to use instead.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startCli } from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'mcppipe-secrets-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('mcppipe up: upstream URL secrets', () => {
  it('a URL with user:pw@ is a usage error (exit 2) that says to send a header, without the secret', async () => {
    const r = await runCli([
      'up',
      '--port',
      '46410',
      '--upstream',
      'dead=http://user:pw@127.0.0.1:46411/mcp?token=SECRET123',
      '--stdio',
      'mem=node server.js',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--upstream dead="http://[redacted]@127.0.0.1:46411/mcp?[redacted]"');
    expect(r.stderr).toContain('headers = { Authorization = "Bearer ${TOKEN}" }');
    expect(r.stderr).not.toMatch(/SECRET123|user:pw/);

    const toml = file('creds.toml', '[upstreams.dead]\nhttp = "https://me:pw@example.test/mcp"\n');
    const f = await runCli(['up', '--port', '46410', '--upstreams-file', toml]);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain('upstreams.dead.http: must not contain a user name or password');
    expect(f.stderr).not.toContain('me:pw');
  });

  it('the query and userinfo never reach the log, the errors or the table', async () => {
    // a ${VAR} URL passes the file rules; after expansion fetch refuses it with an error naming the full URL
    const toml = file(
      'secrets.toml',
      [
        '[upstreams.a]',
        'http = "http://127.0.0.1:46412/mcp?key=QSECRET"',
        '[upstreams.dead]',
        'http = "${DEAD_URL}"',
      ].join('\n'),
    );
    await using cli = await startCli(['--port', '0', '--upstreams-file', toml, '--log-level', 'debug'], {
      env: { DEAD_URL: 'http://user:pw@127.0.0.1:46414/mcp?token=SECRET123' },
    });
    const stderr = cli.stderr();
    expect(stderr).toContain('UPSTREAM'); // the table was printed
    expect(stderr).toContain('"url":"http://127.0.0.1:46412/mcp?[redacted]"'); // the logged spec
    expect(stderr).toContain('http://[redacted]@127.0.0.1:46414/mcp?[redacted]'); // the SDK's error, redacted
    expect(stderr).not.toMatch(/QSECRET|SECRET123|user:pw|token=/);
  });
});
