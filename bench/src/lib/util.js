// Small helpers shared by the scenarios.
import { createServer } from 'node:net';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function median(xs) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** A free TCP port on 127.0.0.1 (for processes whose port must be known before they print it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Sums CPU over several load runs of one target and divides by the calls that succeeded. */
export function cpuPerCall(runs, label) {
  let self = 0;
  let children = 0;
  let ok = 0;
  for (const r of runs) {
    const t = r.targets[label];
    if (!t) continue;
    self += t.cpuMs;
    children += t.childrenCpuMs;
    ok += r.ok;
  }
  return { self: ok > 0 ? self / ok : NaN, children: ok > 0 ? children / ok : NaN };
}

/** A short line for the progress log. */
export function describeRun(r) {
  const err = r.errors ? ` errors ${r.errors} (${r.firstError})` : '';
  return `${r.ok} ok, ${r.perSecond.toFixed(0)}/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${err}`;
}
