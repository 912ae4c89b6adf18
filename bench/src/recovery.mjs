#!/usr/bin/env node
// Recovery time of a supervised stdio upstream: SIGKILL the real server-everything process N times and print the
// milliseconds from SIGKILL to `recovering` (detection) and to `available` again (recovery): min / median / max.
//
//   node bench/src/recovery.mjs [--runs 10] [--initial-backoff-ms 500] [--policy aggregator|gateway]
//
// Needs the built supervisor (`pnpm build`). Bounded: at most 50 runs, 30 s per run, 5 min in all. No network: the
// upstream is a local process spawned with `node`.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Supervisor } from '../../packages/supervisor/dist/index.js';
import { aggregatorPolicy, gatewayPolicy } from '../../packages/upstream-state/dist/index.js';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

// The same lookup as test/helpers/src/servers.ts referenceServerPath('everything').
const requireFromHelpers = createRequire(new URL('../../test/helpers/package.json', import.meta.url));
const everything = join(
  dirname(requireFromHelpers.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

const runs = Math.min(50, Math.max(1, Number(arg('runs', '10'))));
const initialBackoffMs = Number(arg('initial-backoff-ms', '0')) || undefined;
const base = arg('policy', 'aggregator') === 'gateway' ? gatewayPolicy : (o) => aggregatorPolicy(o);
// Each kill is measured as a fresh failure: without this the policy (rightly) keeps backing off a process that keeps
// dying within backoffResetAfterMs of coming up.
const policy = base({ backoffResetAfterMs: 0, ...(initialBackoffMs && { initialBackoffMs }) });
const PER_RUN_MS = 30_000;
const deadline = Date.now() + 5 * 60_000;

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  const f = (x) => x.toFixed(1).padStart(8);
  return `min ${f(s[0])}  median ${f(median)}  max ${f(s.at(-1))}`;
};

function nextEvent(sup, to) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sup.off('state_changed', on);
      reject(new Error(`no transition to ${to} within ${PER_RUN_MS} ms`));
    }, PER_RUN_MS);
    const on = (e) => {
      if (e.to !== to) return;
      clearTimeout(timer);
      sup.off('state_changed', on);
      resolve(performance.now());
    };
    sup.on('state_changed', on);
  });
}

const sup = new Supervisor({
  upstreams: [{ name: 'everything', transport: 'stdio', command: process.execPath, args: [everything] }],
  policy,
  seed: 1,
});
const detect = [];
const recover = [];
try {
  await sup.start();
  if (sup.get('everything').phase !== 'available')
    throw new Error(`could not start: ${sup.get('everything').lastError}`);
  for (let i = 0; i < runs && Date.now() < deadline; i++) {
    const { pid } = sup.get('everything');
    const down = nextEvent(sup, 'recovering');
    const up = nextEvent(sup, 'available');
    const t0 = performance.now();
    process.kill(pid, 'SIGKILL');
    detect.push((await down) - t0);
    recover.push((await up) - t0);
    await sup.request('everything', {
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'ok' } },
    });
  }
} finally {
  await sup.stop();
}
console.log(
  `recovery of a SIGKILLed stdio upstream (server-everything), ${recover.length} runs, policy ${policy.name}`,
);
console.log(
  `  first retry after ${policy.initialBackoffMs} ms ±${policy.jitterRatio * 100}% jitter (backoff reset on each run); ms from SIGKILL`,
);
console.log(`  detected (→ recovering): ${stats(detect)}`);
console.log(`  recovered (→ available): ${stats(recover)}`);
