/**
 * Names for unnamed sources: a bare single source still gets a name (for logs, metrics and the
 * startup table), and error messages suggest names for bare sources.
 */
import { sanitizeUpstreamName } from './names.js';

/** Words skipped when naming a command after its package or script (`npx -y pkg` → `pkg`). */
const RUNNERS = new Set([
  'npx',
  'pnpx',
  'bunx',
  'uvx',
  'pipx',
  'node',
  'deno',
  'bun',
  'python',
  'python3',
  'uv',
  'docker',
  'podman',
  'npm',
  'pnpm',
  'yarn',
  'run',
  'exec',
  'dlx',
  'x',
  'env',
  'sudo',
  'cmd',
  'cmd.exe',
  '/c',
]);

/** Host labels that say nothing about the server (`mcp.notion.com` → `notion`). */
const GENERIC_LABELS = new Set(['www', 'mcp', 'api']);

/**
 * A valid upstream name for an HTTP URL: its first meaningful host label (`https://mcp.notion.com/mcp`
 * → `notion`, `http://localhost:3001` → `localhost`, `http://127.0.0.1:3001` → `srv-127-0-0-1`).
 */
export function nameForUrl(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return 'http';
  }
  if (/^[\d.]+$/.test(host) || host.startsWith('[')) return sanitizeUpstreamName(host.replace(/[[\]]/g, ''));
  const labels = host.split('.').filter(Boolean);
  const meaningful =
    labels.length > 2 || GENERIC_LABELS.has(labels[0] ?? '')
      ? labels.find((l) => !GENERIC_LABELS.has(l))
      : labels[0];
  return sanitizeUpstreamName(meaningful ?? labels[0] ?? 'http');
}

/**
 * A valid upstream name for a command line: the package, module or script it runs
 * (`npx -y @modelcontextprotocol/server-filesystem .` → `server-filesystem`,
 * `python -m mcp_server_git` → `mcp_server_git`, `/opt/bin/my-server --port 1` → `my-server`).
 */
export function nameForCommand(command: string): string {
  const words = command
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/^["']|["']$/g, ''));
  const word =
    words.find(
      (w) => w !== '' && !w.startsWith('-') && !w.includes('=') && !RUNNERS.has(basename(w).toLowerCase()),
    ) ??
    words[0] ??
    '';
  const base = basename(meaningfulPath(word))
    .replace(/^@[^/]*\//, '')
    .replace(/@[^@]*$/, '')
    .replace(/\.(?:m?js|cjs|ts|py|exe|cmd|sh)$/i, '');
  return sanitizeUpstreamName(base === '' ? 'stdio' : base);
}

/** Generic entry file names say nothing about the server: `…/server-memory/dist/index.js` is `server-memory`. */
const GENERIC_ENTRY = /^(?:index|main|cli|server|bin)(?:\.(?:m?js|cjs|ts|py))?$/i;
const BUILD_DIRS = new Set(['dist', 'build', 'lib', 'src', 'bin', 'out']);

function meaningfulPath(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  if (parts.length < 2 || !GENERIC_ENTRY.test(parts[parts.length - 1] ?? '')) return path;
  let i = parts.length - 2;
  while (i > 0 && BUILD_DIRS.has((parts[i] ?? '').toLowerCase())) i--;
  const dir = parts[i] ?? '..';
  return dir === '..' || BUILD_DIRS.has(dir.toLowerCase()) ? path : parts.slice(0, i + 1).join('/');
}

function basename(path: string): string {
  const scoped = /^@[^/]+\/[^/]+/.exec(path);
  if (scoped) return scoped[0];
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** `base`, or `base-2`, `base-3`, … : the first not in `taken` (which it joins). */
export function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) {
    const suffix = `-${i}`;
    name = `${base.slice(0, 32 - suffix.length)}${suffix}`;
  }
  taken.add(name);
  return name;
}
