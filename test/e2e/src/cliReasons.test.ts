// Issue 13.6: an upstream that fails says why, in the table and in full in the log (`--log-level info`).
import { fixturePath, freePort, startCli } from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';

const node = (script: string) => `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`;

interface LogLine {
  msg?: string;
  upstream?: string;
  err?: string;
}

function logLines(stderr: string): LogLine[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

describe('mcppipe up: why an upstream failed', () => {
  it('logs the full last error at --log-level info and shows the reason in the table', async () => {
    const port = await freePort(); // nothing listens there
    const refused = `http://127.0.0.1:${port}/mcp`;
    await using cli = await startCli([
      '--stdio',
      `usage=${node(fixturePath('sup-usage-error.mjs'))}`,
      '--upstream',
      `web=${refused}`,
      '--log-level',
      'info',
    ]);
    const stderr = cli.stderr();
    const failed = logLines(stderr).filter((l) => l.msg === 'upstream connection attempt failed');

    const usage = failed.find((l) => l.upstream === 'usage')?.err ?? '';
    expect(usage).toMatch(/^the process exited with code 1: [^;]*; stderr: /);
    expect(usage.split('; stderr: ')[1]).toBe(
      'No access token was provided. | Usage: sup-usage-error [options] | ' +
        '  --option-1  what option 1 does (usage line 1) | … | ' +
        [36, 37, 38, 39, 40]
          .map((i) => `  --option-${i}  what option ${i} does (usage line ${i})`)
          .join(' | '),
    );
    expect(failed.find((l) => l.upstream === 'web')?.err).toBe(
      `connection refused at ${refused}: nothing listens on 127.0.0.1:${port}; is the server running, and is the port right?`,
    );

    const table = stderr.slice(stderr.indexOf('UPSTREAM  '), stderr.indexOf('mcppipe: serving'));
    const column = table.split('\n')[0]!.indexOf('LAST ERROR');
    const errorText = table
      .split('\n')
      .slice(1)
      .map((l) => l.slice(column).trim())
      .join(' ');
    expect(errorText).toContain(`connection refused at ${refused}`);
    expect(errorText).toContain('No access token was provided.');
  });
});
