import { readFile, readdir } from 'node:fs/promises';
import { readFileSync, readdirSync } from 'node:fs';

/** One process as read from `/proc/<pid>/stat`. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** `R`, `S`, `Z` (zombie), … */
  state: string;
  /** Start time in clock ticks since boot (with the pid, identifies a process across pid reuse). */
  startTime: string;
}

/** Environment variables that mark a process as started by a supervisor (also copied into grandchildren). */
export const MARK_PID = 'MCPPIPE_SUPERVISOR_PID';
/** The start time of the supervisor process (`/proc/<pid>/stat` field 22), to survive pid reuse. */
export const MARK_START = 'MCPPIPE_SUPERVISOR_START';
/** The supervisor instance id. */
export const MARK_ID = 'MCPPIPE_SUPERVISOR_ID';
/** One spawn: `<instance id>/<upstream>/<n>`. */
export const MARK_CHILD = 'MCPPIPE_SUPERVISOR_CHILD';

function parseStat(pid: number, text: string): ProcessInfo | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const f = text.slice(close + 2).split(' ');
  // after "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime
  // cstime priority nice threads itrealvalue starttime
  if (f.length < 20) return undefined;
  return { pid, state: f[0] ?? '?', ppid: Number(f[1]), pgid: Number(f[2]), startTime: f[19] ?? '' };
}

/** Whether `/proc` can be read (Linux). */
export function hasProcFs(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}

/** Reads one process's stat line; undefined when it is gone or unreadable. */
export async function readProcess(pid: number): Promise<ProcessInfo | undefined> {
  try {
    return parseStat(pid, await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The start time of this process, or '' without `/proc`. */
export function selfStartTime(): string {
  try {
    return parseStat(process.pid, readFileSync('/proc/self/stat', 'utf8'))?.startTime ?? '';
  } catch {
    return '';
  }
}

/** Every process visible in `/proc` (empty without it). */
export async function listProcesses(): Promise<ProcessInfo[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  // read concurrently: one by one, each read waits for the event loop, which a starting process keeps busy
  const infos = await Promise.all(names.filter((n) => /^\d+$/.test(n)).map((n) => readProcess(Number(n))));
  return infos.filter((info): info is ProcessInfo => info !== undefined);
}

/** A process's environment as a map; undefined when gone or not readable (another user). */
export async function readEnvironment(pid: number): Promise<Map<string, string> | undefined> {
  let raw: string;
  try {
    raw = await readFile(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return undefined;
  }
  return markedEnvironment(raw);
}

/** The `MCPPIPE_*` entries of a `/proc/<pid>/environ` text (NUL-separated `NAME=value`). */
function markedEnvironment(raw: string): Map<string, string> {
  const env = new Map<string, string>();
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0 && entry.startsWith('MCPPIPE_')) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/** Live (non-zombie) members of process group `pgid`, from `/proc`; undefined without `/proc`. */
export async function groupMembers(pgid: number): Promise<number[] | undefined> {
  if (!hasProcFs()) return undefined;
  return (await listProcesses()).filter((p) => p.pgid === pgid && p.state !== 'Z').map((p) => p.pid);
}

/** Sends `signal` to a whole process group; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether any non-zombie process of group `pgid` exists. */
export async function groupAlive(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, 0)) return false;
  const members = await groupMembers(pgid);
  return members === undefined ? true : members.length > 0;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until group `pgid` is gone or `ms` passed; returns whether it is gone. */
export async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (let i = 0; ; i++) {
    if (!(await groupAlive(pgid))) return true;
    if (Date.now() >= deadline) return false;
    await sleep(Math.min(i < 10 ? 20 : 50, Math.max(1, deadline - Date.now())));
  }
}

/**
 * Ends a process group the polite way: `beforeTerm` (close stdin) and wait, then SIGTERM and wait, then SIGKILL.
 *
 * @returns the step that ended it: `exit` (on its own), `SIGTERM`, `SIGKILL`, or `survived`
 */
export async function terminateGroup(
  pgid: number,
  options: { graceMs: number; beforeTerm?: () => void },
): Promise<'exit' | 'SIGTERM' | 'SIGKILL' | 'survived'> {
  if (options.beforeTerm) {
    options.beforeTerm();
    if (await waitGroupGone(pgid, options.graceMs)) return 'exit';
  } else if (!(await groupAlive(pgid))) {
    return 'exit';
  }
  signalGroup(pgid, 'SIGTERM');
  if (await waitGroupGone(pgid, options.graceMs)) return 'SIGTERM';
  signalGroup(pgid, 'SIGKILL');
  return (await waitGroupGone(pgid, 2_000)) ? 'SIGKILL' : 'survived';
}

/** Processes whose environment satisfies `match` (reads `/proc/<pid>/environ`; empty without `/proc`). */
export async function findMarked(
  match: (env: Map<string, string>, info: ProcessInfo) => boolean,
): Promise<ProcessInfo[]> {
  const live = (await listProcesses()).filter((info) => info.pid !== process.pid && info.state !== 'Z');
  const envs = await Promise.all(live.map((info) => readEnvironment(info.pid)));
  return live.filter((info, i) => {
    const env = envs[i];
    return env !== undefined && env.size > 0 && match(env, info);
  });
}

/** Kills processes (and the groups they lead) with SIGTERM, then SIGKILL after `graceMs`; returns their pids. */
export async function killProcesses(procs: ProcessInfo[], graceMs: number): Promise<number[]> {
  const signal = (p: ProcessInfo, s: NodeJS.Signals) => {
    if (p.pgid === p.pid) signalGroup(p.pid, s);
    try {
      process.kill(p.pid, s);
    } catch {
      // already gone
    }
  };
  for (const p of procs) signal(p, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  let alive = procs;
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(50);
    const next: ProcessInfo[] = [];
    for (const p of alive) {
      const now = await readProcess(p.pid);
      if (now && now.startTime === p.startTime && now.state !== 'Z') next.push(p);
    }
    alive = next;
  }
  for (const p of alive) signal(p, 'SIGKILL');
  return procs.map((p) => p.pid);
}

/** Reads one process's stat line synchronously; undefined when it is gone or unreadable. */
function readProcessSync(pid: number): ProcessInfo | undefined {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

const MARK_PID_BYTES = Buffer.from(`${MARK_PID}=`, 'latin1');

/**
 * The processes marked by a supervisor process that is gone: its pid is not running, or runs with another start time
 * (pid reuse). Reads `/proc` synchronously: one `environ` per process (a few microseconds each, where each
 * `fs.promises` read waited for the event loop of a process that is starting), and `stat` only for the marked few
 * and their owners (cold start, issue 21).
 */
function findOrphans(): ProcessInfo[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const starts = new Map<number, string | undefined>();
  const ownerStart = (pid: number): string | undefined => {
    if (!starts.has(pid)) starts.set(pid, readProcessSync(pid)?.startTime);
    return starts.get(pid);
  };
  const orphans: ProcessInfo[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    let raw: Buffer;
    try {
      raw = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue; // gone, or another user's
    }
    if (raw.indexOf(MARK_PID_BYTES) < 0) continue;
    const env = markedEnvironment(raw.toString('latin1'));
    const owner = Number(env.get(MARK_PID));
    if (!Number.isInteger(owner) || owner <= 0) continue;
    const info = readProcessSync(pid);
    if (info === undefined || info.state === 'Z') continue;
    const recorded = env.get(MARK_START) ?? '';
    const live = ownerStart(owner);
    if (live === undefined || (recorded !== '' && live !== recorded)) orphans.push(info);
  }
  return orphans;
}

/**
 * Finds processes left by a supervisor process that is gone (crashed, SIGKILLed) — marked with its pid and start
 * time in their environment — and kills them. A supervisor that is still running is never touched.
 *
 * @param graceMs - wait between SIGTERM and SIGKILL
 * @returns the pids that were reaped
 */
export async function reapOrphans(graceMs = 1_000): Promise<number[]> {
  if (!hasProcFs()) return [];
  const orphans = findOrphans();
  return orphans.length === 0 ? [] : killProcesses(orphans, graceMs);
}
