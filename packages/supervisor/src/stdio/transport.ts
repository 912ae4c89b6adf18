import type { ChildProcess } from 'node:child_process';
import { spawn as nodeSpawn } from 'node:child_process';
import { McpPipeError } from '@mcppipe/errors';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { DEFAULT_KILL_GRACE_MS, DEFAULT_STDERR_TAIL_BYTES, MAX_STDOUT_LINE_BYTES } from '../defaults.js';
import { MARK_CHILD, findMarked, killProcesses, terminateGroup } from './processTree.js';
import type { ExcerptOptions } from './textTail.js';
import { TextTail } from './textTail.js';

/** Options of {@link StdioProcessTransport}. */
export interface StdioProcessOptions {
  /** The executable (resolved through `PATH`, no shell). */
  command: string;
  /** Arguments, verbatim. */
  args: readonly string[];
  /** The complete environment of the child. */
  env: Readonly<Record<string, string>>;
  /** Working directory. Default: inherited. */
  cwd?: string;
  /** Spawn function (tests). Default: `child_process.spawn`. */
  spawn?: typeof nodeSpawn;
  /** Wait between closing stdin, SIGTERM and SIGKILL of the group, in ms. Default 2 000. */
  killGraceMs?: number;
  /** stderr bytes kept for diagnostics. Default 16 384. */
  stderrTailBytes?: number;
  /** Called for every stdout line that is not a JSON-RPC message (it is skipped). */
  onSkippedLine?: (line: string) => void;
}

/** How the child ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * An MCP client transport over a child process's stdio, built for supervision:
 *
 * - spawned without a shell in its **own process group** (`detached`), so closing it ends the whole tree — an
 *   `npx`-launched server's node grandchild included: stdin closed, then SIGTERM, then SIGKILL to the group;
 * - stderr is drained continuously into a bounded tail (a child writing megabytes never blocks);
 * - stdout lines that are not JSON-RPC (banners, logs) are skipped and reported, never fatal;
 * - `onclose` fires once, when the child exits (the rest of its group is killed) or after {@link close}.
 *
 * @example
 * ```ts
 * const transport = new StdioProcessTransport({ command: 'npx', args: ['-y', 'some-server'], env: process.env });
 * await client.connect(transport);
 * ```
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Called once, synchronously, when the child exits (before its streams are drained and before `onclose`): the
   * moment calls stop being deliverable.
   */
  onexit?: (info: ExitInfo) => void;

  readonly #options: StdioProcessOptions;
  readonly #tail: TextTail;
  #child: ChildProcess | undefined;
  #exit: ExitInfo | undefined;
  #stash: Buffer[] = [];
  #stashBytes = 0;
  #discarding = false;
  #closing: Promise<void> | undefined;
  #finished = false;
  #intentional = false;

  /** @param options - see {@link StdioProcessOptions} */
  constructor(options: StdioProcessOptions) {
    this.#options = options;
    this.#tail = new TextTail(options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES);
  }

  /** The child's pid (the process group id) once spawned. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the child exited, once it has. */
  get exitInfo(): ExitInfo | undefined {
    return this.#exit;
  }

  /** Whether {@link close} was called (an exit after it is not a crash). */
  get closedIntentionally(): boolean {
    return this.#intentional;
  }

  /**
   * The last stderr lines, oldest first.
   *
   * @param count - how many lines at most
   */
  stderrLines(count: number): string[] {
    return this.#tail.lines(count);
  }

  /**
   * The stderr lines that explain a failure: the first lines, error-like lines near the start, and the last lines,
   * with `…` where lines were left out (see {@link TextTail.excerpt}).
   *
   * @param options - how many lines of each kind
   */
  stderrExcerpt(options: ExcerptOptions): string[] {
    return this.#tail.excerpt(options);
  }

  /**
   * Spawns the child. Resolves once it is running.
   *
   * @throws McpPipeError `MCPP_SUP_SPAWN_FAILED` when the command cannot be started (not found, bad cwd)
   */
  start(): Promise<void> {
    if (this.#child) return Promise.reject(new Error('StdioProcessTransport already started'));
    const { command, args, env, cwd } = this.#options;
    return new Promise((resolve, reject) => {
      let spawned = false;
      const fail = (err: unknown) =>
        new McpPipeError(
          'MCPP_SUP_SPAWN_FAILED',
          `cannot start ${JSON.stringify(command)}: ${(err as Error).message}`,
          {
            cause: err,
            data: { command, cwd },
          },
        );
      let child: ChildProcess;
      try {
        child = (this.#options.spawn ?? nodeSpawn)(command, [...args], {
          env,
          cwd,
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: true,
          shell: false,
          windowsHide: true,
        });
      } catch (err) {
        reject(fail(err));
        return;
      }
      this.#child = child;
      child.once('error', (err) => {
        if (!spawned) {
          this.#finished = true;
          reject(fail(err));
        } else {
          this.onerror?.(err);
        }
      });
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.once('exit', (code, signal) => this.#onExit({ code, signal }));
      child.once('close', () => this.#finish());
      child.stdout?.on('data', (chunk: Buffer) => this.#onStdout(chunk));
      child.stderr?.on('data', (chunk: Buffer) => this.#tail.append(chunk));
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on('error', () => {});
    });
  }

  /** Writes one message as a line; waits for `drain` under backpressure. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#exit || this.#closing || !stdin.writable) {
      return Promise.reject(new McpPipeError('MCPP_SUP_EXITED', 'the upstream process is not running'));
    }
    if (stdin.write(`${JSON.stringify(message)}\n`)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        stdin.off('drain', done);
        stdin.off('close', done);
        resolve();
      };
      stdin.once('drain', done);
      stdin.once('close', done);
    });
  }

  /** Ends the whole process group (stdin closed → SIGTERM → SIGKILL) and fires `onclose` once. Idempotent. */
  close(): Promise<void> {
    this.#intentional = true;
    this.#closing ??= this.#terminate();
    return this.#closing;
  }

  async #terminate(): Promise<void> {
    const child = this.#child;
    const pid = child?.pid;
    if (child && pid !== undefined) {
      await terminateGroup(pid, {
        graceMs: this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
        beforeTerm: this.#exit ? undefined : () => child.stdin?.end(),
      });
      // Let the last buffered stdout through before the streams go (the group is gone, so `close` comes soon).
      if (!this.#finished) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 500);
          child.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
      // Processes that left the group (setsid daemons) still carry this spawn's mark: end them too.
      const token = this.#options.env[MARK_CHILD];
      if (token !== undefined) {
        const stragglers = await findMarked((env) => env.get(MARK_CHILD) === token);
        if (stragglers.length > 0)
          await killProcesses(stragglers, this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      }
    }
    this.#finish();
  }

  #onExit(info: ExitInfo): void {
    this.#exit = info;
    try {
      this.onexit?.(info);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
    // The leader is gone: whatever it left in its group goes too (an npx wrapper's server, a helper).
    if (!this.#closing) this.#closing = this.#terminate();
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#stash = [];
    this.onclose?.();
  }

  #onStdout(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        this.#keep(chunk.subarray(start));
        return;
      }
      let line = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.#stash.length > 0) {
        line = Buffer.concat([...this.#stash, line]);
        this.#stash = [];
        this.#stashBytes = 0;
      }
      if (this.#discarding) {
        this.#discarding = false;
        continue;
      }
      if (line.length > 0) this.#onLine(line);
    }
  }

  #keep(part: Buffer): void {
    if (part.length === 0 || this.#discarding) return;
    if (this.#stashBytes + part.length > MAX_STDOUT_LINE_BYTES) {
      this.#stash = [];
      this.#stashBytes = 0;
      this.#discarding = true;
      this.#options.onSkippedLine?.(`<a line longer than ${MAX_STDOUT_LINE_BYTES} bytes>`);
      return;
    }
    this.#stash.push(Buffer.from(part));
    this.#stashBytes += part.length;
  }

  #onLine(buf: Buffer): void {
    const text = buf.toString('utf8');
    let message: unknown;
    if (buf[0] === 0x7b /* { */ || text.trimStart().startsWith('{')) {
      try {
        message = JSON.parse(text);
      } catch {
        message = undefined;
      }
    }
    if (
      typeof message === 'object' &&
      message !== null &&
      (message as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
      ('method' in message || 'id' in message)
    ) {
      try {
        this.onmessage?.(message as JSONRPCMessage);
      } catch (err) {
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      }
      return;
    }
    const trimmed = text.replace(/\r$/, '');
    if (trimmed.trim() !== '') {
      this.#tail.append(`[stdout] ${trimmed}\n`);
      this.#options.onSkippedLine?.(trimmed);
    }
  }
}
