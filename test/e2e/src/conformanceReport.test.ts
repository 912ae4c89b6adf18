/**
 * The conformance runner's report (conformance/report.mjs): in a run that passes, the baselined failures and known
 * issues print as expected, and no line says FAILURE or ✗ (issue 13.11).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

interface Scenario {
  scenario: string;
  status: 'passed' | 'expected-failure' | 'known-issue' | 'failed';
  passed: number;
  failed: number;
  warnings: number;
  failures: { id: string; status: string; message: string }[];
}
type FormatReport = (
  report: {
    mode: string;
    ok: boolean;
    scenarios: Scenario[];
    problems: string[];
    knownIssuesNotReproduced: string[];
  },
  options: { suiteVersion: string; target: string; url: string; verbose: boolean; invocations: object[] },
) => string;

const reportModule = join(dirname(fileURLToPath(import.meta.url)), '..', 'conformance', 'report.mjs');
const { formatReport } = (await import(reportModule)) as { formatReport: FormatReport };

// What the suite prints with --expected-failures for one baselined and one passing scenario (its real format).
const suiteStdout = [
  "Running client scenario 'tools-call-simple-text' against server: http://127.0.0.1:1/mcp",
  '=== SUMMARY ===',
  '✓ server-initialize: 3 passed, 0 failed',
  '✗ tools-call-simple-text: 0 passed, 1 failed',
  '✗ prompts-get-simple: 0 passed, 1 failed',
  '',
  'Total: 3 passed, 2 failed',
  '',
  'Expected failures (in baseline):',
  '  ~ tools-call-simple-text',
  '',
  'Baseline check passed: all failures are expected.',
].join('\n');

const scenario = (s: Partial<Scenario> & Pick<Scenario, 'scenario' | 'status'>): Scenario => ({
  passed: 0,
  failed: 1,
  warnings: 0,
  failures: [{ id: `${s.scenario}-check`, status: 'FAILURE', message: 'Tool "test_simple_text" not found' }],
  ...s,
});

describe('conformance report', () => {
  it('a check that passes prints its baselined failures as expected (baselined), with no FAILURE or ✗ line', () => {
    const text = formatReport(
      {
        mode: 'aggregated',
        ok: true,
        problems: [],
        knownIssuesNotReproduced: [],
        scenarios: [
          scenario({ scenario: 'server-initialize', status: 'passed', passed: 3, failed: 0, failures: [] }),
          scenario({ scenario: 'tools-call-simple-text', status: 'expected-failure' }),
          scenario({ scenario: 'prompts-get-simple', status: 'known-issue' }),
        ],
      },
      {
        suiteVersion: '0.1.16',
        target: 'mcppipe up',
        url: 'http://127.0.0.1:1/mcp',
        verbose: false,
        invocations: [{ label: '--suite active', stdout: suiteStdout, stderr: '' }],
      },
    );
    expect(text).not.toMatch(/FAILURE|✗/);
    expect(text).toContain('~ tools-call-simple-text: 0 passed, 1 failed (expected (baselined))');
    expect(text).toContain('~ prompts-get-simple: 0 passed, 1 failed (expected (known issue))');
    expect(text).toContain(
      '    expected (baselined) tools-call-simple-text-check: Tool "test_simple_text" not found',
    );
    expect(text).toContain(
      '    expected (known issue) prompts-get-simple-check: Tool "test_simple_text" not found',
    );
    expect(text).toContain('✓ server-initialize: 3 passed, 0 failed');
  });

  it('an unexpected failure still says FAILURE and ✗', () => {
    const text = formatReport(
      {
        mode: 'aggregated',
        ok: false,
        problems: [
          'tools-call-simple-text: tools-call-simple-text-check FAILURE: Tool "test_simple_text" not found',
        ],
        knownIssuesNotReproduced: [],
        scenarios: [scenario({ scenario: 'tools-call-simple-text', status: 'failed' })],
      },
      {
        suiteVersion: '0.1.16',
        target: 'mcppipe up',
        url: 'http://127.0.0.1:1/mcp',
        verbose: false,
        invocations: [{ label: '--suite active', stdout: suiteStdout, stderr: '' }],
      },
    );
    expect(text).toContain('✗ tools-call-simple-text: 0 passed, 1 failed\n');
    expect(text).toContain('    FAILURE tools-call-simple-text-check: Tool "test_simple_text" not found');
    expect(text).toContain('FAILED: 0 scenarios passed');
  });
});
