// Reading a process's CPU time and memory from /proc (Linux). Everything here is synchronous and cheap
// (a few small file reads), so sampling before and after a measured window does not disturb it.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

let ticksPerSecond;
/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`, almost always 100). */
export function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Fields of /proc/<pid>/stat after the command name: index 0 is field 3 (state). */
function statFields(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** User + system CPU time of one process (its own threads, not its children), in ms; undefined once gone. */
export function cpuMs(pid) {
  try {
    const f = statFields(pid);
    return ((Number(f[11]) + Number(f[12])) * 1000) / clockTicks();
  } catch {
    return undefined;
  }
}

/** Resident set size of one process in bytes (VmRSS); undefined once gone. */
export function rssBytes(pid) {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Every live descendant of a process (children, grandchildren…), from one scan of /proc. */
export function descendants(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(statFields(entry)[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // exited while scanning
    }
  }
  const out = [];
  const queue = [pid];
  while (queue.length > 0 && out.length < 10_000) {
    for (const c of children.get(queue.shift()) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/**
 * A CPU sample of a process and, separately, of its descendants (for mcppipe: its upstreams). Take one before
 * and one after a window and subtract with {@link cpuDelta}.
 */
export function sampleTree(pid) {
  const kids = descendants(pid);
  const perKid = new Map();
  for (const k of kids) {
    const ms = cpuMs(k);
    if (ms !== undefined) perKid.set(k, ms);
  }
  return { self: cpuMs(pid) ?? 0, kids: perKid, rss: rssBytes(pid) ?? 0 };
}

/** CPU used between two {@link sampleTree} samples: `self` and `children` in ms (children alive at both ends). */
export function cpuDelta(before, after) {
  let children = 0;
  for (const [k, ms] of after.kids) {
    const was = before.kids.get(k);
    if (was !== undefined) children += ms - was;
  }
  return { self: after.self - before.self, children };
}

/**
 * Pins processes (every thread of each) to a set of CPUs with `taskset` (util-linux). Their children started later
 * inherit the set.
 *
 * @param {number[]} pids - the processes
 * @param {string} cpuList - `taskset -c` syntax: `0`, `1-3`
 * @returns {boolean} false when `taskset` is missing or refused (nothing is pinned then)
 */
export function pinCpus(pids, cpuList) {
  try {
    for (const pid of pids)
      execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
