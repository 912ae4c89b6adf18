// Smoke check of the benchmark (issue 9): `node bench/src/run.js --quick` completes and prints the table with
// every scenario. No thresholds: the numbers of a quick run on a shared CI machine mean nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturesDir } from '@mcppipe/test-utils';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(fixturesDir, '..', '..', '..');
const out = mkdtempSync(join(tmpdir(), 'mcppipe-bench-smoke-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function runQuick(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench', 'src', 'run.js'), '--quick', '--out', out], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // run.js bounds itself (4 min with --quick); this is only a backstop
    const timer = setTimeout(() => child.kill('SIGTERM'), 280_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('pnpm bench --quick', () => {
  it('completes and prints the table with every scenario', { timeout: 300_000 }, async () => {
    const { code, stdout, stderr } = await runQuick();
    expect(code, stderr.slice(-3000)).toBe(0);
    const rows = stdout.split('\n').filter((l) => l.startsWith('| '));
    const ids = new Set(rows.map((l) => l.split('|')[1]?.trim()));
    for (const id of ['R1', 'R2', 'R3', 'R4', 'R5', 'R6', 'Rec'])
      expect(ids, `table rows:\n${rows.join('\n')}`).toContain(id);
    expect(stdout).not.toContain('FAILED');
    for (const t of ['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7'])
      expect(stdout).toMatch(new RegExp(`^${t} `, 'm'));
    const files = readdirSync(out).filter((f) => f.endsWith('-quick.json'));
    expect(files).toHaveLength(1);
    const json = JSON.parse(readFileSync(join(out, files[0]!), 'utf8')) as {
      rows: unknown[];
      quick: boolean;
    };
    expect(json.quick).toBe(true);
    expect(json.rows.length).toBe(rows.length - 1); // the header row is not a result
  });
});
