// The conformance runner's report (run.mjs): the suite's own summary, then mcppipe's verdict per scenario.
// Failures that are expected print as such: a baselined scenario (prefixing, baseline-aggregated.yml) as
// `expected (baselined)`, a known mcppipe issue (known-issues.yml) as `expected (known issue)`. Only unexpected
// failures say FAILURE or ✗, so a run that passes prints neither (issue 13.11).

// eslint-disable-next-line no-control-regex
const stripAnsi = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');
const tail = (text, lines) => text.trimEnd().split('\n').slice(-lines).join('\n');

/** The label an expected failure gets instead of FAILURE/✗, by scenario status. */
const EXPECTED = { 'expected-failure': 'expected (baselined)', 'known-issue': 'expected (known issue)' };

/**
 * The suite's summary lines (`✗ <scenario>: 3 passed, 1 failed`) with the ✗ of an expected failure replaced by
 * `~ … (expected (baselined))` (or known issue); unexpected failures keep their ✗.
 */
export function labelSummary(text, report) {
  const status = new Map(report.scenarios.map((s) => [s.scenario, s.status]));
  return text.replace(/^✗ ([^:\s]+):(.*)$/gm, (whole, scenario, rest) => {
    const label = EXPECTED[status.get(scenario)];
    return label ? `~ ${scenario}:${rest} (${label})` : whole;
  });
}

/**
 * The whole report as text.
 *
 * @param report - summarize()'s verdict
 * @param options - `{ suiteVersion, target, url, verbose, invocations }`
 */
export function formatReport(report, { suiteVersion, target, url, verbose, invocations }) {
  const out = [];
  const line = (s = '') => out.push(`${s}\n`);
  const mark = { passed: '✓', 'expected-failure': '~', 'known-issue': '!', failed: '✗' };
  const note = {
    'expected-failure': ' (baseline: prefixing)',
    'known-issue': ' (KNOWN MCPPIPE ISSUE, see known-issues.yml)',
  };
  line(`\n=== conformance ${suiteVersion} · mode ${report.mode} ===`);
  line(`target: ${target}`);
  line(`url:    ${url}`);
  for (const inv of invocations) {
    line(`\n--- suite output (${inv.label}) ---`);
    const text = verbose ? inv.stdout : inv.stdout.slice(Math.max(0, inv.stdout.indexOf('=== SUMMARY ===')));
    line(labelSummary(stripAnsi(text), report).trimEnd());
    if (inv.stderr.trim()) line(`[stderr]\n${tail(inv.stderr, 20)}`);
  }
  line(`\n--- per scenario (${report.mode}) ---`);
  for (const s of report.scenarios) {
    const counts = `${s.passed} passed, ${s.failed} failed${s.warnings ? `, ${s.warnings} warnings` : ''}`;
    line(`${mark[s.status]} ${s.scenario.padEnd(32)} ${counts}${note[s.status] ?? ''}`);
    for (const f of s.failures) line(`    ${EXPECTED[s.status] ?? f.status} ${f.id}: ${f.message}`);
  }
  const tally = (st) => report.scenarios.filter((s) => s.status === st).length;
  line(
    `\n${report.ok ? 'OK' : 'FAILED'}: ${tally('passed')} scenarios passed, ${tally('expected-failure')} expected ` +
      `failures (baseline), ${tally('known-issue')} known mcppipe issues, ${tally('failed')} unexpected`,
  );
  for (const scenario of report.knownIssuesNotReproduced) {
    line(
      `  note: known issue ${scenario} did not reproduce this time (remove it from known-issues.yml once fixed)`,
    );
  }
  for (const p of report.problems) line(`  ✗ ${p}`);
  return out.join('');
}
