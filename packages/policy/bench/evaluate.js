#!/usr/bin/env node
// Micro-benchmark of @mcppipe/policy (issue 17): per-call cost of evaluating 100 rules, and of the limiter.
//
//   pnpm --filter @mcppipe/policy build && pnpm --filter @mcppipe/policy bench [-- --quick]
//
// Bounded: each case runs at most ITERATIONS calls and at most BUDGET_MS; prints ns/op to stdout.
// Nothing here is asserted: unit tests are never timed.
import { compilePolicy } from '../dist/index.js';

const quick = process.argv.includes('--quick');
const ITERATIONS = quick ? 200_000 : 2_000_000;
const BUDGET_MS = quick ? 2_000 : 10_000;

// 100 rules: prefix, suffix, exact, middle-star and ? globs, a third of them per caller; none matches the
// worst-case name, so a call walks all 100 before the default decides.
const rules = [];
for (let i = 0; i < 100; i++) {
  const up = `upstream${i}`;
  const match = [
    `${up}__write_*`,
    `*__${up}_delete`,
    `${up}__exact_tool`,
    `${up}__*_admin_*`,
    `${up}__get_?`,
  ][i % 5];
  rules.push({
    match,
    action: i % 2 ? 'allow' : 'deny',
    ...(i % 3 === 0 ? { callers: ['ci-bot', 'client_8f2a'] } : {}),
  });
}
const policy = compilePolicy({
  rules,
  limits: [
    { scope: 'caller', rate: '999999/s', burst: 1000000 },
    { scope: 'caller+tool', match: 'search__*', rate: '999999/s', burst: 1000000 },
  ],
});

// Reports CPU time per call (process.cpuUsage: user + system of this process) next to wall time: on a shared,
// loaded machine wall time mostly measures waiting for a core.
function measure(label, fn) {
  for (let i = 0; i < 10_000; i++) fn(i); // warm-up
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const deadline = start + BigInt(BUDGET_MS) * 1_000_000n;
  let n = 0;
  while (n < ITERATIONS) {
    for (let j = 0; j < 1000; j++) fn(n + j);
    n += 1000;
    if (process.hrtime.bigint() > deadline) break;
  }
  const cpu = process.cpuUsage(cpu0);
  const wallNs = Number(process.hrtime.bigint() - start) / n;
  const cpuNs = ((cpu.user + cpu.system) * 1000) / n;
  const fmt = (ns) => ns.toFixed(0).padStart(7);
  process.stdout.write(
    `${label.padEnd(72)} cpu ${fmt(cpuNs)} ns/op  wall ${fmt(wallNs)} ns/op  (${n} calls)\n`,
  );
}

// The index by upstream does not help here: 100 rules that all name the same upstream, and 100 rules that name
// none (leading *), none matching.
const sameUpstream = compilePolicy({
  rules: Array.from({ length: 100 }, (_, i) => ({
    match: i % 2 ? `github__x${i}_*` : `github__*_y${i}_?`,
    action: 'deny',
  })),
});
const noUpstream = compilePolicy({
  rules: Array.from({ length: 100 }, (_, i) => ({ match: i % 2 ? `*__x${i}_*` : `*_y${i}`, action: 'deny' })),
});

const names = ['search__query', 'github__create_issue', 'filesystem__read_file', 'slack__post_message'];
let sink = 0;
measure('allows: 100 rules on 100 upstreams, no match', (i) => {
  sink += policy.allows('tool', names[i & 3], 'alice') ? 1 : 0;
});
measure('allows: 100 rules, match at rule 50 (regex glob)', (i) => {
  sink += policy.allows('tool', i & 1 ? 'upstream48__get_x' : 'upstream48__get_y', 'alice') ? 1 : 0;
});
measure('allows: 100 rules, per-caller rules apply (ci-bot)', (i) => {
  sink += policy.allows('tool', names[i & 3], 'ci-bot') ? 1 : 0;
});
measure('allows: 100 rules on the same upstream, no match (worst case)', (i) => {
  sink += sameUpstream.allows('tool', i & 1 ? 'github__create_issue' : 'github__get_me', 'alice') ? 1 : 0;
});
measure('allows: 100 rules without an upstream prefix, no match', (i) => {
  sink += noUpstream.allows('tool', names[i & 3], 'alice') ? 1 : 0;
});
// Uncached: decide() always evaluates the rules (allows() remembers decisions), so these are the full cost.
measure('evaluate (uncached): 100 rules on the same upstream, no match', (i) => {
  sink += sameUpstream.decide('tool', i & 1 ? 'github__create_issue' : 'github__get_me', 'alice').allowed
    ? 1
    : 0;
});
measure('evaluate (uncached): 100 rules without an upstream prefix, no match', (i) => {
  sink += noUpstream.decide('tool', names[i & 3], 'alice').allowed ? 1 : 0;
});
measure('evaluate (uncached): 100 rules on 100 upstreams, no match', (i) => {
  sink += policy.decide('tool', names[i & 3], 'alice').allowed ? 1 : 0;
});
// Churn: a name never seen before on every call (an agent guessing names): evaluation plus memo bookkeeping.
measure('allows: 100 rules on the same upstream, a new name each call', (i) => {
  sink += sameUpstream.allows('tool', `github__tool_${i}`, 'alice') ? 1 : 0;
});
const limiter = policy.limiter();
measure('limiter.take: 2 limits (caller + caller+tool), memory store', (i) => {
  sink += limiter.take(i & 1 ? 'alice' : 'bob', 'search__query').ok ? 1 : 0;
});
const tools = Array.from({ length: 50 }, (_, i) => ({ name: `upstream${i}__tool_${i}` }));
measure('filterTools: 50 tools × 100 rules', () => {
  sink += policy.filterTools(tools, 'alice').length;
});
if (sink === -1) process.stdout.write('unreachable\n');
