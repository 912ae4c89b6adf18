#!/usr/bin/env node
// `pnpm pack:check` (issue 21.3): the published packages install and run outside this workspace.
//
// 1. packs every publishable workspace package (`pnpm pack` rewrites `workspace:^` and `catalog:` to versions);
// 2. fails on a packed manifest that still names a workspace-only version or path (workspace:, catalog:, link:, file:);
// 3. installs the CLI's and the gateway's tarballs plus the tarballs of their `@mcppipe/*` dependencies into an empty
//    temporary directory with ONE `npm install` (third-party packages come from the npm registry);
// 4. runs from there: `mcppipe --version`, `mcppipe up --stdio … --port 0` answering one `tools/list`,
//    `mcppipe-gateway --help`, and the first example of @mcppipe/aggregator's README (its upstreams swapped for a
//    dependency-free fixture), answering `tools/list` over stdio.
// Missing `files`, undeclared dependencies or workspace-only paths make one of these fail. Bounded: every step has a
// timeout, and the whole check stops after TOTAL_MS. Logs go to stderr; exit 0 on success, 1 on failure.
import { execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TOTAL_MS = 8 * 60_000;
const STEP_MS = 60_000;
const INSTALL_MS = 5 * 60_000;
const FIXTURE = join(root, 'bench/fixtures/list-server.mjs');

const log = (line) => process.stderr.write(`pack:check: ${line}\n`);
const fail = (line) => {
  throw new Error(line);
};

/** Every publishable workspace package: `packages/*` and `apps/*` without `"private": true`. */
function publishable() {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(root, group, d.name))
      .flatMap((dir) => {
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
        return manifest.private ? [] : [{ dir, name: manifest.name, version: manifest.version }];
      }),
  );
}

/** pnpm as this script was started with (`pnpm pack:check`), else the pinned one through npx. */
function pnpm(args) {
  const execPath = process.env['npm_execpath'];
  if (execPath && /pnpm/.test(execPath)) {
    // pnpm 12 ships as a standalone executable; older ones as a script that node runs
    return /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath, ...args]] : [execPath, args];
  }
  return ['npx', ['-y', 'pnpm@12.4.2', ...args]];
}

/** Reads `package/package.json` out of a tarball. */
async function packedManifest(tarball) {
  const { stdout } = await run('tar', ['-xOzf', tarball, 'package/package.json'], { timeout: STEP_MS });
  return JSON.parse(stdout);
}

/** A packed manifest must not name workspace-only versions or paths. */
function checkManifest(name, manifest) {
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (/^(workspace:|catalog:|link:|file:)/.test(String(range)))
        fail(`${name}: ${field}.${dep} is "${range}" in the packed package.json (workspace-only)`);
    }
  }
}

/** The `@mcppipe/*` packages `name` needs, itself included, following packed dependencies. */
function closure(names, manifests) {
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    const manifest =
      manifests.get(name) ?? fail(`${name} is needed but is not a publishable workspace package`);
    seen.add(name);
    for (const dep of Object.keys(manifest.dependencies ?? {})) if (dep.startsWith('@mcppipe/')) visit(dep);
  };
  names.forEach(visit);
  return [...seen];
}

/** Runs a process to its end with a timeout; rejects with its output on a non-zero exit. */
async function exec(cmd, args, opts) {
  try {
    return await run(cmd, args, { timeout: STEP_MS, maxBuffer: 16 * 1024 * 1024, ...opts });
  } catch (err) {
    fail(
      `\`${[cmd, ...args].join(' ')}\` failed (exit ${err.code}):\n${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
  }
}

/** Starts a process; `waitFor(re)` resolves with the match once stderr shows it. */
function start(cmd, args, opts) {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], ...opts });
  let stderr = '';
  let stdout = '';
  child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
  child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
  const exited = new Promise((r) => child.on('exit', (code) => r(code)));
  const waitFor = (read, re, what) =>
    new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        clearInterval(poll);
        reject(new Error(`${what}: timed out; output:\n${stdout}${stderr}`));
      }, STEP_MS);
      const poll = setInterval(() => {
        const m = re.exec(read());
        if (m) {
          clearInterval(poll);
          clearTimeout(timer);
          resolvePromise(m);
        }
      }, 20);
      exited.then((code) => {
        setTimeout(() => {
          if (re.exec(read())) return;
          clearInterval(poll);
          clearTimeout(timer);
          reject(new Error(`${what}: exited ${code} first; output:\n${stdout}${stderr}`));
        }, 100);
      });
    });
  return {
    child,
    onStderr: (re, what) => waitFor(() => stderr, re, what),
    onStdout: (re, what) => waitFor(() => stdout, re, what),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** One JSON-RPC request over Streamable HTTP; answers come as JSON or as an SSE stream. */
async function rpc(url, body, headers = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(STEP_MS),
  });
  const text = await res.text();
  if (!res.ok) fail(`POST ${url} ${body.method}: HTTP ${res.status}: ${text}`);
  const json = res.headers.get('content-type')?.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)))
        .find((m) => m.id === body.id)
    : JSON.parse(text);
  if (!json?.result) fail(`${body.method}: no result: ${text}`);
  return { result: json.result, session: res.headers.get('mcp-session-id') };
}

const initialize = (id) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'pack-check', version: '1' },
  },
});

/** `mcppipe up` with two stdio upstreams answers one tools/list listing both. */
async function checkUp(bin, fixture) {
  const up = start(
    bin('mcppipe'),
    ['up', '--stdio', `a=node ${fixture} --tools 3`, '--stdio', `b=node ${fixture} --tools 2`, '--port', '0'],
    { env: { ...process.env, MCPPIPE_LOG_FORMAT: 'json' } },
  );
  try {
    const [, url] = await up.onStderr(/mcppipe: serving (http:\/\/\S+\/mcp)/, 'mcppipe up');
    const { session } = await rpc(url, initialize(1));
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      signal: AbortSignal.timeout(STEP_MS),
    });
    // upstreams still starting join later (with list_changed): ask until both are listed, within STEP_MS
    const want = ['a__tool_000', 'a__tool_001', 'a__tool_002', 'b__tool_000', 'b__tool_001'];
    const until = Date.now() + STEP_MS;
    let names = [];
    for (let id = 2; Date.now() < until; id++) {
      const { result } = await rpc(url, { jsonrpc: '2.0', id, method: 'tools/list', params: {} }, headers);
      names = result.tools.map((t) => t.name).sort();
      if (JSON.stringify(names) === JSON.stringify(want)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    if (JSON.stringify(names) !== JSON.stringify(want))
      fail(`mcppipe up: tools/list gave ${JSON.stringify(names)}, expected ${JSON.stringify(want)}`);
    log(`mcppipe up answered tools/list at ${url}: ${names.join(', ')}`);
  } finally {
    await up.stop();
  }
}

/** @mcppipe/aggregator's README "Usage" example, its upstreams swapped for the fixture, over stdio. */
async function checkAggregatorReadme(work, fixture) {
  const readme = readFileSync(join(root, 'packages/aggregator/README.md'), 'utf8');
  const example = /```js\n(\/\/ aggregate\.mjs\n[\s\S]*?)```/.exec(readme)?.[1];
  if (!example) fail('packages/aggregator/README.md has no "// aggregate.mjs" example');
  const swapped = example.replace(
    /command: '[^']*'/g,
    `command: ${JSON.stringify(`node ${fixture} --tools 1`)}`,
  );
  if (!/command: "node /.test(swapped))
    fail('the aggregator README example names no upstream command to swap');
  writeFileSync(join(work, 'aggregate.mjs'), swapped);
  const agg = start(process.execPath, [join(work, 'aggregate.mjs')], { cwd: work });
  try {
    agg.child.stdin.write(`${JSON.stringify(initialize(1))}\n`);
    await agg.onStdout(/"id":1/, 'aggregator README example: initialize');
    agg.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    agg.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })}\n`);
    const [line] = await agg.onStdout(/^.*"id":2.*$/m, 'aggregator README example: tools/list');
    const names = JSON.parse(line)
      .result.tools.map((t) => t.name)
      .sort();
    if (JSON.stringify(names) !== JSON.stringify(['everything__tool_000', 'memory__tool_000']))
      fail(`aggregator README example: tools/list gave ${JSON.stringify(names)}`);
    log(`@mcppipe/aggregator README example answered tools/list: ${names.join(', ')}`);
  } finally {
    agg.child.stdin.end();
    await agg.stop();
  }
}

async function main() {
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'mcppipe-pack-check-'));
  const tarballs = join(work, 'tarballs');
  const install = join(work, 'install');
  mkdirSync(tarballs);
  mkdirSync(install);
  try {
    const packages = publishable();
    const manifests = new Map();
    const tarballOf = new Map();
    for (const pkg of packages) {
      const [cmd, args] = pnpm(['pack', '--pack-destination', tarballs]);
      await exec(cmd, args, { cwd: pkg.dir });
      const file = join(tarballs, `${pkg.name.replace('@', '').replace('/', '-')}-${pkg.version}.tgz`);
      const manifest = await packedManifest(file);
      checkManifest(pkg.name, manifest);
      manifests.set(pkg.name, manifest);
      tarballOf.set(pkg.name, file);
    }
    log(`packed ${packages.length} packages in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const wanted = closure(['mcppipe', '@mcppipe/gateway'], manifests);
    writeFileSync(join(install, 'package.json'), JSON.stringify({ name: 'pack-check', private: true }));
    await exec(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', ...wanted.map((n) => tarballOf.get(n))],
      { cwd: install, timeout: INSTALL_MS },
    );
    log(`installed ${wanted.join(', ')} with npm in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const fixture = join(work, 'list-server.mjs');
    copyFileSync(FIXTURE, fixture);
    const bin = (name) => join(install, 'node_modules', '.bin', name);
    const cwd = install;

    const { stdout: version } = await exec(bin('mcppipe'), ['--version'], { cwd });
    if (version.trim() !== manifests.get('mcppipe').version)
      fail(`mcppipe --version printed "${version.trim()}", expected ${manifests.get('mcppipe').version}`);
    log(`mcppipe --version: ${version.trim()}`);

    await checkUp(bin, fixture);

    const { stdout: help } = await exec(bin('mcppipe-gateway'), ['--help'], { cwd });
    if (!help.includes('mcppipe-gateway')) fail(`mcppipe-gateway --help printed no usage:\n${help}`);
    log('mcppipe-gateway --help: ok');

    await checkAggregatorReadme(install, fixture);
    log(`ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const deadline = setTimeout(() => {
  log(`failed: took longer than ${TOTAL_MS / 1000} s`);
  process.exit(1);
}, TOTAL_MS);
deadline.unref();
main().then(
  () => process.exit(0),
  (err) => {
    log(`failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
