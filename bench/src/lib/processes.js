// Starting and stopping the processes a bench run measures. Every process started here is tracked and stopped
// (SIGTERM, then SIGKILL of it and of every descendant it had) when the run ends, even on an error.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { descendants } from './proc.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(HERE, '..', '..', '..');
export const CLI = join(ROOT, 'apps', 'cli', 'dist', 'cli.js');
export const GATEWAY_CLI = join(ROOT, 'apps', 'gateway', 'dist', 'cli.js');
export const LIST_FIXTURE = join(ROOT, 'bench', 'fixtures', 'list-server.mjs');
export const SERVERS_DIR = join(HERE, '..', 'servers');
export const SAMPLE_FILES = join(ROOT, 'examples', 'sample-files');

// The same lookup as test/helpers/src/servers.ts referenceServerPath().
const requireFromHelpers = createRequire(join(ROOT, 'test', 'helpers', 'package.json'));
/** Entry script of a reference server installed in test/helpers: `everything`, `memory`, `filesystem`. */
export function referenceServerPath(name) {
  return join(
    dirname(requireFromHelpers.resolve(`@modelcontextprotocol/server-${name}/package.json`)),
    'dist',
    'index.js',
  );
}

/** Shell-words quoting, for stdio command lines handed to `mcppipe up`. */
export const quote = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);
/** A stdio command line running a node script. */
export const nodeCommand = (script, ...args) => [process.execPath, script, ...args].map(quote).join(' ');

const live = new Set();

/**
 * Spawns a process and resolves once `ready` matches its stdout or stderr.
 *
 * @param {string} command
 * @param {string[]} args
 * @param {{ ready: RegExp, timeoutMs?: number, env?: NodeJS.ProcessEnv, cwd?: string }} options
 * @returns {Promise<{ proc: import('node:child_process').ChildProcess, pid: number, match: RegExpExecArray, output: () => string, stop: () => Promise<void> }>}
 */
export function startProcess(command, args, { ready, timeoutMs = 60_000, env, cwd } = {}) {
  const proc = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    cwd,
  });
  let output = '';
  let known = [];
  const handle = {
    proc,
    pid: proc.pid,
    output: () => output,
    async stop(graceMs = 10_000) {
      live.delete(handle);
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      try {
        known = descendants(proc.pid);
      } catch {
        // ignore
      }
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      for (const pid of known) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
  live.add(handle);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void handle.stop();
      reject(
        new Error(`${command} ${args.join(' ')} not ready within ${timeoutMs} ms:\n${output.slice(-2000)}`),
      );
    }, timeoutMs);
    const onData = (chunk) => {
      output += chunk;
      if (output.length > 1_000_000) output = output.slice(-100_000);
      const match = ready.exec(output);
      if (match && !handle.match) {
        handle.match = match;
        clearTimeout(timer);
        resolve(handle);
      }
    };
    proc.stdout.setEncoding('utf8').on('data', onData);
    proc.stderr.setEncoding('utf8').on('data', onData);
    proc.once('exit', (code, signal) => {
      live.delete(handle);
      clearTimeout(timer);
      if (!handle.match)
        reject(
          new Error(`${command} exited (${code ?? signal}) before it was ready:\n${output.slice(-2000)}`),
        );
    });
  });
}

/**
 * Starts `mcppipe up` with the given source flags on a free port; resolves once it serves.
 *
 * @param {string[]} args `--stdio …`, `--upstreams-file …`, `--stateless`…
 * @param {{ nodeArgs?: string[], timeoutMs?: number, env?: NodeJS.ProcessEnv }} [options] node flags (e.g.
 *   `--cpu-prof`), extra environment (e.g. `MCPPIPE_API_KEY`: secrets go there, never in argv)
 * @returns {Promise<{ pid: number, port: number, stop: () => Promise<void>, output: () => string }>}
 */
export async function startMcppipe(args, { nodeArgs = [], timeoutMs = 90_000, env } = {}) {
  const h = await startProcess(
    process.execPath,
    [...nodeArgs, CLI, 'up', ...args, '--port', '0', '--log-format', 'json', '--log-level', 'warn'],
    { ready: /serving http:\/\/127\.0\.0\.1:(\d+)\/mcp/, timeoutMs, env },
  );
  return { ...h, port: Number(h.match[1]) };
}

/** Starts one of the baseline servers in bench/src/servers; resolves with its port. */
export async function startBaseline(file, args = []) {
  const h = await startProcess(process.execPath, [join(SERVERS_DIR, file), '--port', '0', ...args], {
    ready: /listening (\d+)/,
  });
  return { ...h, port: Number(h.match[1]) };
}

/** Stops every process still running (end of run, or an error). */
export async function stopAll() {
  await Promise.allSettled([...live].map((h) => h.stop(5_000)));
}
