#!/usr/bin/env node
// `pnpm bench`: every performance scenario of issue 9 in ONE run, each as a ratio against a baseline started in
// the same run, on 127.0.0.1 only. Prints a table and writes bench/results/<date>.json.
//
//   node bench/src/run.js [--quick] [--only r1,r3,r4,r5,r6,r7,r8,r9,r10,recovery] [--out DIR] [--profile [--cli]]
//
//   --quick    a smoke run for CI: a few seconds per scenario, the same table (numbers are not meaningful)
//   --only     run some scenarios (r1 includes r2: they share their processes)
//   --out      where the JSON goes (default bench/results)
//   --profile  no table: `node --cpu-prof` on mcppipe during the R1 c=16 runs, then a summary of the profile;
//              with `--only r7`: on the relay (the gateway process) during the R7 runs through the tunnel;
//              with `--only r7 --cli`: on `mcppipe up` (the tunnel client) during those runs instead
//
// Needs the workspace built (`pnpm bench` builds first). Bounded: every load loop has a call count and a time
// budget, every process a start timeout, and the whole run a deadline (10 min; 4 min with --quick).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { summarize } from './profile-summary.js';
import { ROOT, stopAll } from './lib/processes.js';
import { table, targetSummary } from './lib/report.js';
import { capture, captureRows } from './scenarios/capture.js';
import { coldstart, coldstartRows } from './scenarios/coldstart.js';
import { fanout, fanoutRows } from './scenarios/fanout.js';
import { gateway, gatewayRows } from './scenarios/gateway.js';
import { memory, memoryRows } from './scenarios/memory.js';
import { overhead, overheadRows } from './scenarios/overhead.js';
import { recovery, recoveryRows } from './scenarios/recovery.js';
import { idleTunnelRows, idleTunnels, tunnelCallRows, tunnelCalls } from './scenarios/tunnel.js';
import { scale, scaleRows } from './scenarios/scale.js';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const value = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : undefined;
};
const quick = flag('quick');
const only = value('only')
  ?.split(',')
  .map((s) => s.trim().toLowerCase());
const wants = (name) => !only || only.includes(name) || (name === 'r2' && only.includes('r1'));
const outDir = value('out') ?? join(ROOT, 'bench', 'results');

const FULL = {
  rounds: 3,
  warmUpstream: 5_000, // server-everything's JIT settles after ~5,000 calls
  warmBaseline: 2_000,
  warmMs: 30_000,
  c1Calls: 2_000,
  c1Ms: 3_000,
  c16Calls: 20_000,
  c16Ms: 4_000,
  aggregateRow: true,
  listWarm: 200,
  listCalls: 2_000,
  listMs: 3_000,
  coldIterations: 100,
  memWarm: 3_000,
  memWarmMs: 20_000,
  memCount: 100_000,
  memMs: 75_000,
  memSettleMs: 2_000,
  coldRuns: 3,
  recoveryRuns: 5,
  idleTunnels: 1_000,
  deadlineMs: 16 * 60_000,
};
const QUICK = {
  rounds: 1,
  warmUpstream: 300,
  warmBaseline: 100,
  warmMs: 3_000,
  c1Calls: 100,
  c1Ms: 1_000,
  c16Calls: 400,
  c16Ms: 1_500,
  aggregateRow: true,
  listWarm: 10,
  listCalls: 50,
  listMs: 1_000,
  coldIterations: 5,
  memWarm: 100,
  memWarmMs: 3_000,
  memCount: 500,
  memMs: 3_000,
  memSettleMs: 200,
  coldRuns: 1,
  recoveryRuns: 1,
  idleTunnels: 100,
  deadlineMs: 4 * 60_000,
};
const cfg = quick ? QUICK : FULL;

const started = Date.now();
const log = (line) =>
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);

const deadline = setTimeout(() => {
  log(`bench: gave up after ${cfg.deadlineMs / 1000} s`);
  void stopAll().finally(() => process.exit(1));
}, cfg.deadlineMs);
deadline.unref();
for (const sig of ['SIGINT', 'SIGTERM'])
  process.once(sig, () => void stopAll().finally(() => process.exit(130)));

function machine() {
  const c = cpus();
  let commit;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    commit = undefined;
  }
  return {
    cpus: c.length,
    model: c[0]?.model,
    memoryGB: +(totalmem() / 2 ** 30).toFixed(1),
    freeMemoryGB: +(freemem() / 2 ** 30).toFixed(1),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage: loadavg().map((x) => +x.toFixed(2)),
    commit,
  };
}

/**
 * `--profile --only r7`: the relay (the gateway process) under `--cpu-prof` during R7's tunnel runs, per era; with
 * `--cli`, `mcppipe up` (the tunnel client serving those calls) instead.
 */
async function profileRelay(dir) {
  const side = flag('cli') ? 'mcppipe up' : 'the relay';
  log(`profiling ${side} (node --cpu-prof) during the R7 tunnel runs; profiles in ${dir}`);
  const profCfg = { ...cfg, rounds: 1, c1Calls: 1 };
  const summaries = [];
  for (const target of ['tunnel-session', 'tunnel-modern']) {
    const sub = join(dir, target);
    const prof = ['--cpu-prof', `--cpu-prof-dir=${sub}`];
    const r = await tunnelCalls(profCfg, log, {
      ...(flag('cli') ? { cliNodeArgs: prof } : { nodeArgs: prof }),
      only: [target],
    });
    if (r.pending) throw new Error(r.pending);
    for (const f of readdirSync(sub).filter((x) => x.endsWith('.cpuprofile'))) {
      const profile = JSON.parse(readFileSync(join(sub, f), 'utf8'));
      summaries.push({
        target,
        file: join(sub, f),
        measured: r.summary[target],
        ...summarize(profile, { top: 40 }),
      });
    }
  }
  return summaries;
}

async function profileRun() {
  const dir = mkdtempSync(join(tmpdir(), 'mcppipe-bench-prof-'));
  if (only?.includes('r7')) return printProfiles(await profileRelay(dir));
  log(`profiling mcppipe (node --cpu-prof) during the R1 runs; profiles in ${dir}`);
  const profCfg = { ...cfg, rounds: 1, c1Calls: 1, aggregateRow: false };
  const summaries = [];
  // one mcppipe process per era, so that each profile shows one path
  for (const target of ['mcppipe-session', 'mcppipe-modern']) {
    const sub = join(dir, target);
    const r = await overhead(profCfg, log, {
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${sub}`],
      only: [target],
    });
    for (const f of readdirSync(sub).filter((x) => x.endsWith('.cpuprofile'))) {
      const profile = JSON.parse(readFileSync(join(sub, f), 'utf8'));
      summaries.push({
        target,
        file: join(sub, f),
        measured: r.summary[target],
        ...summarize(profile, { top: 40 }),
      });
    }
  }
  return printProfiles(summaries);
}

function printProfiles(summaries) {
  for (const s of summaries) {
    const m = s.measured;
    const cpu = flag('cli') && m.cliCpuPerCallMs !== undefined ? m.cliCpuPerCallMs : m.cpuPerCallMs;
    console.log(
      `\n${s.target}: ${s.busyMs.toFixed(0)} ms busy of ${s.totalMs.toFixed(0)} ms sampled (wall-clock samples; ` +
        `measured ${cpu.toFixed(3)} ms CPU per call at c=16) — ${s.file}`,
    );
    console.log('self time by package:');
    for (const r of s.selfByPackage.slice(0, 15))
      console.log(`  ${r.pctOfBusy.toFixed(1).padStart(5)}%  ${r.name}`);
    console.log('self time by function:');
    for (const r of s.selfByFunction.slice(0, 25))
      console.log(`  ${r.pctOfBusy.toFixed(1).padStart(5)}%  ${r.name}`);
  }
  return summaries;
}

async function main() {
  const results = {
    date: new Date().toISOString(),
    quick,
    config: cfg,
    machine: machine(),
    scenarios: {},
    errors: {},
  };
  if (flag('profile')) {
    results.profile = await profileRun();
    mkdirSync(outDir, { recursive: true });
    const which = only?.includes('r7') ? (flag('cli') ? '-tunnel-cli' : '-relay') : '';
    const file = join(outDir, `${results.date.slice(0, 10)}${which}-profile.json`);
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\nsummary: ${file}`);
    return;
  }
  const step = async (name, fn) => {
    log(`${name}…`);
    try {
      results.scenarios[name] = await fn();
    } catch (err) {
      results.errors[name] = err instanceof Error ? err.message : String(err);
      log(`${name} failed: ${results.errors[name]}`);
    } finally {
      await stopAll();
    }
  };
  if (wants('r1')) await step('r1', () => overhead(cfg, log));
  if (wants('r3')) await step('r3', () => fanout(cfg, log));
  if (wants('r4')) await step('r4', () => memory(cfg, log));
  if (wants('r5')) await step('r5', () => coldstart(cfg, log));
  if (wants('r6')) await step('r6', () => gateway(cfg, log));
  if (wants('r10')) await step('r10', () => capture({ ...cfg, quick }, log));
  if (wants('recovery')) await step('recovery', () => recovery(cfg, log));
  if (wants('r7'))
    await step('r7', async () => {
      log('R7 as deployed: the relay on a CPU of its own');
      const split = await tunnelCalls(cfg, log, { split: true });
      log('R7 with every process on the same CPUs (context)');
      return { split, shared: await tunnelCalls(cfg, log) };
    });
  if (wants('r8')) await step('r8', () => idleTunnels(cfg, log));
  if (wants('r9')) await step('r9', () => scale(cfg, log));
  results.machine.loadAverageAtEnd = loadavg().map((x) => +x.toFixed(2));
  results.seconds = (Date.now() - started) / 1000;

  const s = results.scenarios;
  const rows = [
    ...(s.r1 ? overheadRows(s.r1.summary) : []),
    ...(s.r3 ? fanoutRows(s.r3) : []),
    ...(s.r4 ? memoryRows(s.r4) : []),
    ...(s.r5 ? coldstartRows(s.r5) : []),
    ...(s.r6 ? gatewayRows(s.r6, s.r1?.summary) : []),
    ...(s.r10 ? captureRows(s.r10) : []),
    ...(s.recovery ? recoveryRows(s.recovery) : []),
    ...(s.r7 ? tunnelCallRows(s.r7) : []),
    ...(s.r8 ? idleTunnelRows(s.r8) : []),
    ...(s.r9 ? scaleRows(s.r9) : []),
  ];
  for (const [name, message] of Object.entries(results.errors))
    rows.push({ id: name.toUpperCase(), what: `FAILED: ${message.split('\n')[0]}`, value: NaN, unit: '' });
  results.rows = rows;
  results.targets = targetSummary(rows);

  const m = results.machine;
  console.log(
    `\nmcppipe bench${quick ? ' (--quick: smoke run, numbers not meaningful)' : ''} — ${m.cpus}× ${m.model}, ${m.memoryGB} GB, Node ${m.node}, load ${m.loadAverage.join(' ')} → ${m.loadAverageAtEnd.join(' ')}, ${results.seconds.toFixed(0)} s\n`,
  );
  console.log(table(rows));
  console.log('');
  for (const line of results.targets) console.log(line);

  mkdirSync(outDir, { recursive: true });
  // a run of the tunnel scenarios alone is kept apart from the full run of the same day
  const tunnelOnly = only?.every((x) => x === 'r7' || x === 'r8') ? '-tunnel' : '';
  const file = join(outDir, `${results.date.slice(0, 10)}${tunnelOnly}${quick ? '-quick' : ''}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nresults: ${file}`);
  if (Object.keys(results.errors).length > 0) process.exitCode = 1;
}

try {
  await main();
} finally {
  await stopAll();
  clearTimeout(deadline);
}
