#!/usr/bin/env node
// Summarizes a V8 .cpuprofile (from `node --cpu-prof`): where the time goes, by self time per function, by
// package (node_modules package or repo workspace), and the inclusive time of chosen frames.
//
//   node bench/src/profile-summary.js FILE.cpuprofile [--top 30] [--json]
import { readFileSync } from 'node:fs';

/** Which bucket a frame's script belongs to: a package name, a workspace, node internals, or V8. */
export function bucketOf(url) {
  if (!url) return '(v8/native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const ws = /\/(packages|apps)\/([^/]+)\//.exec(url);
  if (ws) return `@mcppipe/${ws[2]}`;
  return url.replace(/^file:\/\//, '');
}

/**
 * @param {{ nodes: any[], samples: number[], timeDeltas: number[], startTime: number, endTime: number }} profile
 * @param {{ top?: number }} [options]
 */
export function summarize(profile, { top = 30 } = {}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let total = 0;
  let idle = 0;
  const fnSelf = new Map();
  const bucketSelf = new Map();
  const inclusive = new Map();
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    const cf = n.callFrame;
    total += us;
    if (cf.functionName === '(idle)' || cf.functionName === '(program)') {
      if (cf.functionName === '(idle)') idle += us;
    }
    const key = `${cf.functionName || '(anonymous)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}`;
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + us);
    const b = cf.functionName.startsWith('(') ? cf.functionName : bucketOf(cf.url);
    bucketSelf.set(b, (bucketSelf.get(b) ?? 0) + us);
    // inclusive time per function name + bucket, each counted once per stack
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur).callFrame;
      const k = `${f.functionName || '(anonymous)'} [${bucketOf(f.url)}]`;
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
  }
  const busy = total - idle;
  const rank = (m, n) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => ({ name: k, ms: us / 1000, pctOfBusy: (100 * us) / busy }));
  return {
    totalMs: total / 1000,
    busyMs: busy / 1000,
    selfByFunction: rank(fnSelf, top),
    selfByPackage: rank(bucketSelf, top),
    inclusive: rank(inclusive, top * 2),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node bench/src/profile-summary.js FILE.cpuprofile [--top 30] [--json]');
    process.exit(2);
  }
  const ti = process.argv.indexOf('--top');
  const s = summarize(JSON.parse(readFileSync(file, 'utf8')), {
    top: ti > 0 ? Number(process.argv[ti + 1]) : 30,
  });
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(s, null, 2));
  } else {
    const pr = (title, rows) => {
      console.log(`\n${title}`);
      for (const r of rows)
        console.log(`${r.pctOfBusy.toFixed(1).padStart(6)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}`);
    };
    console.log(`profile: ${s.totalMs.toFixed(0)} ms sampled, ${s.busyMs.toFixed(0)} ms busy`);
    pr('self time by package', s.selfByPackage);
    pr('self time by function', s.selfByFunction);
    pr('inclusive time', s.inclusive);
  }
}
