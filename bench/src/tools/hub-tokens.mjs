#!/usr/bin/env node
// An ad-hoc tool, not a run.js scenario: run.js reports speed ratios against a baseline (R1–R10), this counts
// tokens, for packages/hub/README.md ("Tokens"). `node bench/src/run.js` does not run it.
//
// Token bench for the hub (issue 8, item 4): how much `tools/list` a client sees through the hub (four
// meta-tools) versus through the namespaced aggregate (every upstream tool as `<upstream>__<name>`), for the
// demo layout (server-everything, server-memory, server-filesystem, real processes) and for a 20-server
// synthetic layout (the demo servers' real tool lists, repeated under 20 names).
//
// Tokens are ESTIMATES: characters / 4 of the compact JSON a client receives (`JSON.stringify(result)`), not a
// real tokenizer. Both sides are real servers behind a real SDK client (in memory, 2025 era) over the same
// registry of the upstreams' raw `tools/list` results: the aggregate side is @mcppipe/aggregator's `tools/list`
// (when it is built; else computed with @mcppipe/namespace's `prefixName`, and when both exist the JSON row
// carries the computed figure too as a cross-check); the hub side is `hub.createServer()`'s `tools/list`, plus
// the hub's lookups (list_servers, list_tools, get_tool) an agent pays before an unfamiliar call, counted on the
// text content the model reads (each lookup result also carries the same object as structuredContent).
//
// Usage: `pnpm build` once, then `node bench/src/tools/hub-tokens.mjs [--json]`. Bounded: exits after 120 s at most.
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..', '..');
const DEADLINE_MS = 120_000;
const SYNTHETIC_SERVERS = 20;
const RAW = { '~standard': { version: 1, vendor: 'bench', validate: (value) => ({ value }) } };
const tokens = (value) => Math.ceil(JSON.stringify(value).length / 4);
/** What the model reads of a tool result: its text content (structuredContent repeats it for programs). */
const textTokens = (result) =>
  Math.ceil(result.content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : 0), 0) / 4);

const deadline = setTimeout(() => {
  console.error(`hub-tokens: gave up after ${DEADLINE_MS} ms`);
  process.exit(1);
}, DEADLINE_MS);
deadline.unref();

async function importDist(pkg) {
  const path = join(ROOT, 'packages', pkg, 'dist', 'index.js');
  try {
    return await import(pathToFileURL(path).href);
  } catch (err) {
    throw new Error(`cannot load ${path}: run \`pnpm build\` first`, { cause: err });
  }
}

/** Starts one demo upstream (a real stdio process) and reads what a registry would hold for it. */
async function startUpstream(name, args, env = {}) {
  const client = new Client({ name: 'hub-tokens-bench', version: '0.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => {});
  await client.connect(transport);
  // server-everything announces tools/list_changed right after initialize; let it settle before listing.
  await new Promise((r) => setTimeout(r, 300));
  const tools = [];
  let cursor;
  for (let page = 0; page < 100; page++) {
    const result = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, RAW);
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return {
    client,
    server: { name, tools, serverInfo: client.getServerVersion(), instructions: client.getInstructions() },
  };
}

/** A read-only in-memory UpstreamRegistry over fixed tool lists (enough for the hub's lookups). */
function memoryRegistry(servers) {
  const byName = new Map(servers.map((s, i) => [s.name, { ...s, index: i }]));
  const snapshot = (s) => ({
    name: s.name,
    spec: { name: s.name, transport: 'stdio', command: 'node' },
    phase: 'available',
    client: undefined,
    capabilities: { tools: {} },
    serverInfo: s.serverInfo,
    instructions: s.instructions,
    protocolVersion: '2025-11-25',
    era: 'legacy',
    lastError: undefined,
    lastChangeAt: 0,
    pid: undefined,
    generation: 1,
    connectedVia: 'stdio',
    retryAfterMs: undefined,
    stderrTail: [],
  });
  return {
    list: () => [...byName.values()].map(snapshot),
    get: (name) => (byName.has(name) ? snapshot(byName.get(name)) : undefined),
    request: async (name, request) => {
      if (request.method !== 'tools/list') throw new Error(`bench registry: ${request.method} not supported`);
      return { tools: byName.get(name).tools };
    },
    notify: async () => {},
    reinitialize: async () => {},
    setUpstreamRequestHandler: () => {},
    on: () => {},
    off: () => {},
  };
}

/** A real SDK client on a fresh server instance of `factory` (in memory, 2025 era). */
async function connectAgent(factory) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await factory({ era: 'legacy' }).connect(serverSide);
  const agent = new Client({ name: 'hub-tokens-agent', version: '0.0.0' });
  await agent.connect(clientSide);
  return agent;
}

/**
 * The namespaced `tools/list` of the aggregate: through the real @mcppipe/aggregator when it is built, else
 * computed (every upstream tool verbatim, renamed `<upstream>__<name>` with prefixName).
 */
async function aggregateToolsList(servers, { createAggregator, prefixName }) {
  const computed = {
    tools: servers.flatMap((s) => s.tools.map((t) => ({ ...t, name: prefixName(s.name, t.name) }))),
  };
  if (!createAggregator) return { list: computed, source: 'computed with prefixName' };
  const aggregator = createAggregator({ registry: memoryRegistry(servers) });
  const agent = await connectAgent(aggregator.createServer);
  try {
    const list = await agent.request({ method: 'tools/list', params: {} }, RAW);
    return { list: { tools: list.tools }, source: '@mcppipe/aggregator', computedTokens: tokens(computed) };
  } finally {
    await agent.close();
    await aggregator.close?.();
  }
}

async function measure(label, servers, packages) {
  const { list: aggregate, source, computedTokens } = await aggregateToolsList(servers, packages);
  const hub = packages.createHub({ registry: memoryRegistry(servers) });
  const agent = await connectAgent(hub.createServer);
  try {
    const hubList = await agent.request({ method: 'tools/list', params: {} }, RAW);
    const call = (name, args) =>
      agent.request({ method: 'tools/call', params: { name, arguments: args } }, RAW);
    const listServers = await call('list_servers', {});
    const listTools = [];
    const getTool = [];
    for (const s of servers) {
      listTools.push(textTokens(await call('list_tools', { server: s.name })));
      for (const t of s.tools)
        getTool.push(textTokens(await call('get_tool', { server: s.name, tool: t.name })));
    }
    const mean = (xs) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    const row = {
      layout: label,
      servers: servers.length,
      upstreamTools: servers.reduce((n, x) => n + x.tools.length, 0),
      aggregateSource: source,
      aggregateTools: aggregate.tools.length,
      aggregateToolsListTokens: tokens(aggregate),
      ...(computedTokens === undefined ? {} : { aggregateComputedTokens: computedTokens }),
      hubToolsListTokens: tokens(hubList),
      hubToolsListCount: hubList.tools.length,
      listServersTokens: textTokens(listServers),
      listToolsTokensMean: mean(listTools),
      listToolsTokensMax: Math.max(...listTools),
      getToolTokensMean: mean(getTool),
      getToolTokensMax: Math.max(...getTool),
    };
    // One unfamiliar call through the hub: list_servers + list_tools (one server) + get_tool (one tool).
    row.hubFirstCallLookupTokens =
      row.hubToolsListTokens + row.listServersTokens + row.listToolsTokensMean + row.getToolTokensMean;
    row.ratio = Math.round((row.aggregateToolsListTokens / row.hubToolsListTokens) * 10) / 10;
    return row;
  } finally {
    await agent.close();
    await hub.close();
  }
}

async function main() {
  const [{ createHub }, { prefixName }] = await Promise.all([importDist('hub'), importDist('namespace')]);
  const { createAggregator } = await importDist('aggregator').catch(() => ({}));
  const requireFromHelpers = createRequire(join(ROOT, 'test', 'helpers', 'package.json'));
  const serverPath = (name) =>
    join(
      dirname(requireFromHelpers.resolve(`@modelcontextprotocol/server-${name}/package.json`)),
      'dist',
      'index.js',
    );
  const sampleFiles = join(ROOT, 'examples', 'sample-files');

  const started = await Promise.all([
    startUpstream('everything', [serverPath('everything'), 'stdio']),
    startUpstream('memory', [serverPath('memory')], {
      MEMORY_FILE_PATH: join(tmpdir(), `mcppipe-hub-tokens-${process.pid}.jsonl`),
    }),
    startUpstream('filesystem', [serverPath('filesystem'), sampleFiles]),
  ]);
  try {
    const demo = started.map((s) => s.server);
    const synthetic = Array.from({ length: SYNTHETIC_SERVERS }, (_, i) => {
      const base = demo[i % demo.length];
      return { ...base, name: `srv${String(i + 1).padStart(2, '0')}-${base.name}`.slice(0, 32) };
    });
    const rows = [];
    rows.push(
      await measure('demo (everything, memory, filesystem)', demo, {
        createHub,
        createAggregator,
        prefixName,
      }),
    );
    rows.push(
      await measure(`synthetic ${SYNTHETIC_SERVERS} servers`, synthetic, {
        createHub,
        createAggregator,
        prefixName,
      }),
    );
    if (process.argv.includes('--json')) {
      console.log(JSON.stringify({ bench: 'hub-tokens', estimate: 'characters/4 of compact JSON', rows }));
      return;
    }
    console.log(
      'Token estimates (characters / 4 of the compact JSON a client receives; not a real tokenizer)\n',
    );
    for (const r of rows) {
      console.log(`${r.layout}: ${r.servers} servers, ${r.upstreamTools} upstream tools`);
      console.log(
        `  tools/list via /mcp (namespaced aggregate, ${r.aggregateTools} tools, ${r.aggregateSource}): ${r.aggregateToolsListTokens} tokens`,
      );
      console.log(
        `  tools/list via /hub (${r.hubToolsListCount} meta-tools):       ${r.hubToolsListTokens} tokens  (${r.ratio}x smaller)`,
      );
      console.log(
        `  hub lookups (text the model reads): list_servers ${r.listServersTokens}; list_tools mean ${r.listToolsTokensMean} / max ${r.listToolsTokensMax}; get_tool mean ${r.getToolTokensMean} / max ${r.getToolTokensMax}`,
      );
      console.log(`  hub tools/list + one unfamiliar call's lookups: ${r.hubFirstCallLookupTokens} tokens\n`);
    }
  } finally {
    await Promise.all(started.map((s) => s.client.close().catch(() => {})));
  }
}

main().then(
  () => {
    clearTimeout(deadline);
  },
  (err) => {
    console.error(err);
    process.exitCode = 1;
  },
);
