// Recovery: SIGKILL of a supervised stdio upstream to `available` again. Runs bench/src/recovery.mjs (the
// supervisor's own bench, by its engineer) as a child process and reads its summary lines.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../lib/processes.js';

const SCRIPT = join(ROOT, 'bench', 'src', 'recovery.mjs');

function parseLine(text, label) {
  const m = new RegExp(`${label}[^:]*:\\s+min\\s+([\\d.]+)\\s+median\\s+([\\d.]+)\\s+max\\s+([\\d.]+)`).exec(
    text,
  );
  return m ? { min: Number(m[1]), median: Number(m[2]), max: Number(m[3]) } : undefined;
}

/**
 * @param {object} cfg see run.js
 * @param {(line: string) => void} log
 */
export function recovery(cfg, log) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [SCRIPT, '--runs', String(cfg.recoveryRuns)],
      { timeout: 5 * 60_000 + 30_000, maxBuffer: 4 * 2 ** 20 },
      (err, stdout, stderr) => {
        if (err) {
          reject(new Error(`recovery.mjs failed: ${err.message}\n${stderr}`));
          return;
        }
        for (const line of stdout.trim().split('\n')) log(`  ${line}`);
        const runs = Number(/(\d+) runs/.exec(stdout)?.[1]);
        const firstRetry = /first retry after (\d+) ms/.exec(stdout)?.[1];
        resolve({
          runs,
          firstRetryMs: firstRetry === undefined ? undefined : Number(firstRetry),
          detected: parseLine(stdout, 'detected'),
          recovered: parseLine(stdout, 'recovered'),
          output: stdout,
        });
      },
    );
  });
}

export function recoveryRows(s) {
  const rows = [];
  if (s.detected)
    rows.push({
      id: 'Rec',
      what: `SIGKILL → recovering (detected), median of ${s.runs}`,
      value: s.detected.median,
      unit: 'ms',
    });
  if (s.recovered) {
    rows.push({
      id: 'Rec',
      what: `SIGKILL → available again, median of ${s.runs} (max ${s.recovered.max.toFixed(0)})`,
      value: s.recovered.median,
      unit: 'ms',
      ...(s.firstRetryMs !== undefined
        ? { baseline: s.firstRetryMs, baselineName: 'first retry backoff (ms)' }
        : {}),
    });
  }
  return rows;
}
