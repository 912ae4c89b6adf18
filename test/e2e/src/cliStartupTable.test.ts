// The startup table (issue 13.5): printed once every upstream's first attempt ended or after the table wait
// (MCPPIPE_TABLE_WAIT_MS, 10 s by default; 1.5 s here, so that the fast fixture is up even on a loaded machine now
// that mcppipe listens sooner) with the slow ones `connecting`; then printed again once the last slow
// upstream has settled.
import { fixturePath, startCli, waitFor } from '@mcppipe/test-utils';
import { describe, expect, it } from 'vitest';

const node = (script: string, ...args: string[]) =>
  [process.execPath, script, ...args].map((a) => JSON.stringify(a)).join(' ');

/** The PHASE of `upstream` in each table printed so far, in order. */
const phases = (stderr: string, upstream: string) =>
  [...stderr.matchAll(new RegExp(`^${upstream}\\s+stdio\\s+\\S+\\s+(\\S+)`, 'gm'))].map((m) => m[1]);

describe('mcppipe up: startup table', () => {
  it('prints the table again, with the slow upstream available, once it has settled', async () => {
    await using cli = await startCli(
      [
        '--stdio',
        `fast=${node(fixturePath('sup-basic.mjs'))}`,
        '--stdio',
        `slow=${node(fixturePath('sup-slow-start.mjs'), '--delay', '8000')}`,
      ],
      { env: { MCPPIPE_TABLE_WAIT_MS: '1500' } },
    );
    // the first table came with the URL, before the slow upstream was ready
    expect(phases(cli.stderr(), 'slow')).toEqual(['connecting']);
    expect(phases(cli.stderr(), 'fast')).toEqual(['available']);

    await waitFor(() => phases(cli.stderr(), 'slow').length === 2, {
      timeoutMs: 60_000,
      message: 'the second table',
    });
    const stderr = cli.stderr();
    expect(phases(stderr, 'slow')).toEqual(['connecting', 'available']);
    expect(phases(stderr, 'fast')).toEqual(['available', 'available']);
    expect(stderr).toMatch(/^mcppipe: every upstream has settled\nUPSTREAM\s+TRANSPORT/m);
    expect(stderr.match(/serving http:/g)).toHaveLength(1);
    // the state change log is still there (one JSON line per transition)
    expect(stderr).toMatch(/"upstream":"slow".*"to":"available"|"to":"available".*"upstream":"slow"/);
  });

  it('shows a failed upstream as failed: the warm-up is not an agent handshake and retries nothing (A12)', async () => {
    await using cli = await startCli(
      [
        '--stdio',
        `a=${node(fixturePath('sup-basic.mjs'))}`,
        '--stdio',
        `b=${node(fixturePath('sup-exit-at-once.mjs'))}`,
        '--hub',
      ],
      { env: { MCPPIPE_UPSTREAM_MAX_ATTEMPTS: '1' } },
    );
    expect(phases(cli.stderr(), 'b')).toEqual(['failed']);
    expect(phases(cli.stderr(), 'a')).toEqual(['available']);
    // no client connected: b is never moved back to connecting
    const transitions = () =>
      cli
        .stderr()
        .split('\n')
        .filter((line) => line.includes('"upstream":"b"') && line.includes('"to":'))
        .map((line) => {
          const { from, to } = JSON.parse(line) as { from: string; to: string };
          return `${from}->${to}`;
        });
    // the log is written asynchronously (pino): its lines may come after the table
    await waitFor(() => transitions().some((t) => t.endsWith('->failed')), {
      timeoutMs: 10_000,
      message: "b's transition to failed in the log",
    });
    await new Promise((r) => setTimeout(r, 500)); // a retry would have logged failed->connecting within this
    expect(transitions()).not.toContain('failed->connecting');
    expect(transitions().at(-1)).toMatch(/->failed$/);
  });
});
