// R5: cold start with the demo layout (server-everything, server-memory, server-filesystem on
// examples/sample-files): from spawning `mcppipe up` to the first tools/list that lists all three upstreams, polled
// by a client from the moment of the spawn. Baseline: each upstream's own start, from spawn to its first complete
// tools/list answer over raw stdio (initialize, initialized, tools/list); the slowest of the three is the floor.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LEGACY_VERSION, agentFor, exchange, resultOf, template } from '../lib/loadgen.js';
import { CLI, SAMPLE_FILES, quote, referenceServerPath, startProcess } from '../lib/processes.js';
import { freePort, median, sleep } from '../lib/util.js';

const UPSTREAMS = ['everything', 'filesystem', 'memory'];
/**
 * A/B switch: `MCPPIPE_BENCH_BASE_CLI=<path to an earlier build's dist/cli.js>` runs that build too, interleaved
 * with this one in every R5/R5s run; its medians are printed beside this build's (`base build` in the rows).
 */
const BASE_CLI = process.env['MCPPIPE_BENCH_BASE_CLI'] || undefined;
const POLL_MS = 10;
const RUN_TIMEOUT_MS = 60_000;

function demoUpstreams(work) {
  return {
    everything: { args: [referenceServerPath('everything')], env: {} },
    filesystem: { args: [referenceServerPath('filesystem'), SAMPLE_FILES], env: {} },
    memory: { args: [referenceServerPath('memory')], env: { MEMORY_FILE_PATH: join(work, 'memory.jsonl') } },
  };
}

function writeLayout(work, ups) {
  const file = join(work, 'demo.toml');
  const lines = ['# demo layout (bench R5)'];
  for (const name of UPSTREAMS) {
    const u = ups[name];
    lines.push(
      `[upstreams.${name}]`,
      `stdio = ${JSON.stringify([process.execPath, ...u.args].map(quote).join(' '))}`,
    );
    const env = Object.entries(u.env);
    if (env.length) lines.push(`env = { ${env.map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(', ')} }`);
    lines.push('');
  }
  writeFileSync(file, lines.join('\n'));
  return file;
}

/** One upstream alone: spawn → first tools/list result over raw newline-delimited JSON-RPC. */
function upstreamStart(u) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, u.args, {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, ...u.env },
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('upstream did not list its tools in time'));
    }, RUN_TIMEOUT_MS);
    const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
    onJsonLines(child.stdout, (m) => {
      if (m.id === 1 && m.result) {
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      } else if (m.id === 2) {
        const ms = performance.now() - t0;
        clearTimeout(timer);
        child.kill('SIGKILL');
        if (m.result) resolve({ ms, tools: m.result.tools.length });
        else reject(new Error(`tools/list failed: ${JSON.stringify(m.error)}`));
      }
    });
    child.on('error', reject);
    send(stdioInitialize('bench'));
  });
}

/** Calls `onMessage` with every JSON-RPC message of a newline-delimited stdio stream (other lines are skipped). */
function onJsonLines(stream, onMessage) {
  let buf = '';
  stream.setEncoding('utf8').on('data', (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let m;
      try {
        m = JSON.parse(line);
      } catch {
        continue;
      }
      onMessage(m);
    }
  });
}

const stdioInitialize = (name) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name, version: '1' } },
});

const initialize = template({
  method: 'initialize',
  params: {
    protocolVersion: LEGACY_VERSION,
    capabilities: {},
    clientInfo: { name: 'bench-cold', version: '1' },
  },
});
const toolsList = template({ method: 'tools/list', params: {} });

/**
 * From mcppipe's startup trace: when the last upstream was spawned, when it listened (ms since its own start, which
 * is within a few ms of our spawn) and its CPU time by then.
 */
function traceOf(proc) {
  const events = [
    ...(proc?.output() ?? '').matchAll(/^mcppipe-trace (\S+) cpu=(\d+) (.+?)(?: \{.*)?$/gm),
  ].map((m) => ({ ms: Number(m[1]), cpuMs: Number(m[2]), event: m[3] }));
  const last = (name) => events.filter((e) => e.event === name).at(-1);
  return {
    upstreamsSpawnedMs: (last('early upstream spawned') ?? last('upstream spawned'))?.ms,
    listeningMs: last('listening')?.ms,
    listeningCpuMs: last('listening')?.cpuMs,
    stdioCpuMs: last('stdio connected')?.cpuMs,
  };
}

/** `mcppipe up` over the demo layout with `front` (the front door's flags), logs as JSON at warn. */
const upArgs = (cli, layout, ...front) => [
  cli,
  'up',
  ...front,
  '--upstreams-file',
  layout,
  '--log-format',
  'json',
  '--log-level',
  'warn',
];

/** mcppipe with the demo layout: spawn → first tools/list that lists all three upstreams. */
async function mcppipeStart(layout, cli = CLI) {
  const port = await freePort();
  const t0 = performance.now();
  const starting = startProcess(
    process.execPath,
    upArgs(cli, layout, '--port', String(port)),
    // MCPPIPE_TRACE_STARTUP: mcppipe's own timeline on stderr (ms since its start), read back after the run
    { ready: /serving http:/, timeoutMs: RUN_TIMEOUT_MS, env: { MCPPIPE_TRACE_STARTUP: '1' } },
  );
  let servingAt;
  starting.then(() => (servingAt = performance.now() - t0)).catch(() => undefined);
  const agent = agentFor(1);
  const deadline = t0 + RUN_TIMEOUT_MS;
  let headers;
  let polls = 0;
  let firstAnswerMs;
  try {
    while (performance.now() < deadline) {
      polls++;
      try {
        if (!headers) {
          const init = await exchange(
            agent,
            port,
            'POST',
            '/mcp',
            { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            initialize.body(polls),
          );
          resultOf(init, polls);
          headers = {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': init.headers['mcp-session-id'],
            'mcp-protocol-version': LEGACY_VERSION,
          };
          firstAnswerMs ??= performance.now() - t0;
          continue;
        }
        const res = await exchange(agent, port, 'POST', '/mcp', headers, toolsList.body(polls));
        const tools = resultOf(res, polls).tools;
        const prefixes = new Set(tools.map((t) => t.name.split('__')[0]));
        if (UPSTREAMS.every((u) => prefixes.has(u))) {
          const ms = performance.now() - t0;
          const proc = await starting.catch(() => undefined); // its serving line may come after the first complete list
          return {
            ms,
            servingMs: servingAt,
            firstAnswerMs,
            tools: tools.length,
            polls,
            trace: traceOf(proc),
          };
        }
      } catch {
        // not listening yet, or not all upstreams listed yet
      }
      await sleep(POLL_MS);
    }
    throw new Error('mcppipe did not list all demo upstreams in time');
  } finally {
    agent.destroy();
    const proc = await starting.catch(() => undefined);
    await proc?.stop();
  }
}

/**
 * R5s: `mcppipe up --transport stdio` with the demo layout, as Claude Desktop or Cursor start it: spawn → the first
 * `tools/list` answered on stdout that lists all three upstreams. The client writes `initialize` at once (the pipe
 * holds it until mcppipe reads), then asks `tools/list` again every POLL_MS until the list is complete.
 */
function mcppipeStdioStart(layout, cli = CLI) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, upArgs(cli, layout, '--transport', 'stdio'), {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, MCPPIPE_TRACE_STARTUP: '1' },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
    let firstAnswerMs;
    let polls = 0;
    let nextId = 2;
    const finish = (err, value) => {
      clearTimeout(timer);
      child.stdin.end(); // stdin closed: mcppipe stops its upstreams and exits
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(killer);
        if (err) reject(err);
        else resolve({ ...value, trace: traceOf({ output: () => stderr }) });
      });
    };
    const timer = setTimeout(
      () => finish(new Error('mcppipe (stdio) did not list all demo upstreams in time')),
      RUN_TIMEOUT_MS,
    );
    const list = () => {
      polls++;
      send({ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} });
    };
    onJsonLines(child.stdout, (m) => {
      if (m.id === 1) {
        firstAnswerMs = performance.now() - t0;
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        list();
      } else if (typeof m.id === 'number' && m.result?.tools) {
        const prefixes = new Set(m.result.tools.map((t) => t.name.split('__')[0]));
        if (UPSTREAMS.every((u) => prefixes.has(u))) {
          finish(undefined, {
            ms: performance.now() - t0,
            firstAnswerMs,
            tools: m.result.tools.length,
            polls,
          });
        } else setTimeout(list, POLL_MS);
      }
    });
    child.on('error', (err) => finish(err));
    send(stdioInitialize('bench-cold-stdio'));
  });
}

/**
 * @param {object} cfg see run.js
 * @param {(line: string) => void} log
 */
export async function coldstart(cfg, log) {
  const work = mkdtempSync(join(tmpdir(), 'mcppipe-bench-r5-'));
  try {
    const ups = demoUpstreams(work);
    const layout = writeLayout(work, ups);
    // one discarded round: first spawns read files from disk
    await mcppipeStart(layout).catch(() => undefined);
    const upstream = Object.fromEntries(UPSTREAMS.map((u) => [u, []]));
    const together = [];
    const mcppipe = [];
    const stdio = [];
    const base = { mcppipe: [], stdio: [] };
    for (let i = 0; i < cfg.coldRuns; i++) {
      for (const u of UPSTREAMS) upstream[u].push((await upstreamStart(ups[u])).ms);
      // the three started at once, without mcppipe: what sharing the two cores costs by itself
      together.push(
        Math.max(...(await Promise.all(UPSTREAMS.map((u) => upstreamStart(ups[u])))).map((r) => r.ms)),
      );
      const r = await mcppipeStart(layout);
      mcppipe.push(r);
      const rs = await mcppipeStdioStart(layout);
      stdio.push(rs);
      if (BASE_CLI) {
        // A/B: an earlier build of the CLI, interleaved with this one in the same run
        const b = await mcppipeStart(layout, BASE_CLI);
        const bs = await mcppipeStdioStart(layout, BASE_CLI);
        base.mcppipe.push(b);
        base.stdio.push(bs);
        log(
          `  run ${i + 1} (base build): mcppipe ${b.ms.toFixed(0)} ms, listening after ${b.trace.listeningCpuMs} ms CPU; stdio ${bs.ms.toFixed(0)} ms, connected after ${bs.trace.stdioCpuMs} ms CPU`,
        );
      }
      log(
        `  run ${i + 1} (stdio): mcppipe ${rs.ms.toFixed(0)} ms (initialize answered ${rs.firstAnswerMs?.toFixed(0)} ms, ${rs.tools} tools, ${rs.polls} lists; own trace: connected after ${rs.trace.stdioCpuMs} ms CPU)`,
      );
      log(
        `  run ${i + 1}: mcppipe ${r.ms.toFixed(0)} ms (first answer ${r.firstAnswerMs?.toFixed(0)} ms, serving line ${r.servingMs?.toFixed(0)} ms, ${r.tools} tools; own trace: upstreams spawned ${r.trace.upstreamsSpawnedMs?.toFixed(0)} ms, listening ${r.trace.listeningMs?.toFixed(0)} ms after ${r.trace.listeningCpuMs} ms CPU); alone: ${UPSTREAMS.map((u) => `${u} ${upstream[u].at(-1).toFixed(0)}`).join(', ')} ms; all three at once ${together.at(-1).toFixed(0)} ms`,
      );
    }
    const alone = Object.fromEntries(UPSTREAMS.map((u) => [u, median(upstream[u])]));
    const slowest = UPSTREAMS.reduce((a, b) => (alone[a] >= alone[b] ? a : b));
    return {
      mcppipeMs: median(mcppipe.map((r) => r.ms)),
      servingMs: median(mcppipe.map((r) => r.servingMs)),
      firstAnswerMs: median(mcppipe.map((r) => r.firstAnswerMs)),
      upstreamsSpawnedMs: median(mcppipe.map((r) => r.trace.upstreamsSpawnedMs ?? NaN)),
      listeningMs: median(mcppipe.map((r) => r.trace.listeningMs ?? NaN)),
      listeningCpuMs: median(mcppipe.map((r) => r.trace.listeningCpuMs ?? NaN)),
      togetherMs: median(together),
      upstreamAloneMs: alone,
      slowest,
      slowestMs: alone[slowest],
      stdioMs: median(stdio.map((r) => r.ms)),
      stdioFirstAnswerMs: median(stdio.map((r) => r.firstAnswerMs)),
      stdioCpuMs: median(stdio.map((r) => r.trace.stdioCpuMs ?? NaN)),
      base: BASE_CLI
        ? {
            mcppipeMs: median(base.mcppipe.map((r) => r.ms)),
            listeningCpuMs: median(base.mcppipe.map((r) => r.trace.listeningCpuMs ?? NaN)),
            stdioMs: median(base.stdio.map((r) => r.ms)),
            stdioCpuMs: median(base.stdio.map((r) => r.trace.stdioCpuMs ?? NaN)),
          }
        : undefined,
      runs: { mcppipe, upstream, together, stdio, base },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The cold start before issue 21 (bench/results/2026-11-30.json, commit 5100b74, load 1.8 on the same 2-core
 * machine): printed beside today's figures so that R5 shows the change.
 */
export const R5_BEFORE = {
  date: '2026-11-30',
  commit: '5100b74',
  overMs: 711,
  mcppipeMs: 1074,
  listeningCpuMs: 703,
};
const was = (text) => `was ${text} on ${R5_BEFORE.date} (${R5_BEFORE.commit})`;

export function coldstartRows(s) {
  const over = s.mcppipeMs - s.slowestMs;
  const overStdio = s.stdioMs - s.slowestMs;
  return [
    {
      id: 'R5',
      what: 'cold start: the three upstreams started at once without mcppipe (context)',
      value: s.togetherMs,
      unit: 'ms',
      baseline: s.slowestMs,
      baselineName: `slowest upstream alone (${s.slowest})`,
      ratio: s.togetherMs / s.slowestMs,
    },
    {
      id: 'R5',
      what: 'cold start: spawn → mcppipe answers its first initialize (listening)',
      value: s.firstAnswerMs,
      unit: 'ms',
    },
    {
      id: 'R5',
      what: "cold start: mcppipe's own CPU until it listens",
      value: s.listeningCpuMs,
      unit: 'ms',
      extra: [
        was(`${R5_BEFORE.listeningCpuMs} ms`),
        s.base && `base build in the same run ${s.base.listeningCpuMs} ms`,
      ]
        .filter(Boolean)
        .join('; '),
      target: 'T6a',
      limit: { maxValue: 350 },
      met: s.listeningCpuMs <= 350,
    },
    {
      id: 'R5',
      what: 'cold start, demo layout: spawn → first complete tools/list',
      value: s.mcppipeMs,
      unit: 'ms',
      baseline: s.slowestMs,
      baselineName: `slowest upstream alone (${s.slowest})`,
      ratio: s.mcppipeMs / s.slowestMs,
      extra: [
        `+${over.toFixed(0)} ms`,
        was(`+${R5_BEFORE.overMs} ms`),
        s.base && `base build in the same run +${(s.base.mcppipeMs - s.slowestMs).toFixed(0)} ms`,
      ]
        .filter(Boolean)
        .join('; '),
      target: 'T6',
      limit: { maxOver: 100 },
      met: over <= 100,
    },
    {
      id: 'R5',
      what: 'cold start, demo layout: first complete tools/list (issue 21 target)',
      value: s.mcppipeMs,
      unit: 'ms',
      baseline: s.slowestMs,
      baselineName: `slowest upstream alone (${s.slowest})`,
      ratio: s.mcppipeMs / s.slowestMs,
      extra: `+${over.toFixed(0)} ms`,
      target: 'T6b',
      limit: { maxOver: 250 },
      met: over <= 250,
    },
    {
      id: 'R5s',
      what: 'cold start, --transport stdio: spawn → first complete tools/list on stdout',
      value: s.stdioMs,
      unit: 'ms',
      baseline: s.slowestMs,
      baselineName: `slowest upstream alone (${s.slowest})`,
      ratio: s.stdioMs / s.slowestMs,
      extra: [
        `+${overStdio.toFixed(0)} ms; initialize answered at ${s.stdioFirstAnswerMs?.toFixed(0)} ms; own CPU until connected ${s.stdioCpuMs} ms`,
        s.base &&
          `base build in the same run +${(s.base.stdioMs - s.slowestMs).toFixed(0)} ms, ${s.base.stdioCpuMs} ms CPU`,
      ]
        .filter(Boolean)
        .join('; '),
      target: 'T6b',
      limit: { maxOver: 250 },
      met: overStdio <= 250,
    },
  ];
}
