// The one atomic file writer (G12): the store's state file, and @mcppipe/oauth's and @mcppipe/events' files.
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a file atomically and durably: a temp file in the same directory (mode 0600 whatever the umask),
 * `fsync(file)`, `rename` over the target, `fsync(dir)`. After a crash the target is the complete old or
 * the complete new content, never a mix.
 *
 * @param path - the target file
 * @param data - the new content
 */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `${tempPrefix(path)}${process.pid}.${randomBytes(6).toString('base64url')}.tmp`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    try {
      await fh.chmod(0o600);
      await fh.writeFile(data, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await fsyncDir(dir);
}

/**
 * Removes temp files a crashed {@link writeFileAtomic} left behind for `path`.
 *
 * @param path - the target file whose strays to remove
 * @returns the names removed
 */
export async function removeStrayTempFiles(path: string): Promise<string[]> {
  const prefix = tempPrefix(path);
  const names = (await readdir(dirname(path))).filter((n) => n.startsWith(prefix) && n.endsWith('.tmp'));
  await Promise.all(names.map((n) => rm(join(dirname(path), n), { force: true })));
  return names;
}

/**
 * Flushes a directory entry (so a rename survives a power loss). Ignored where unsupported.
 *
 * @param dir - the directory
 */
export async function fsyncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM' && code !== 'EBADF') throw err;
  } finally {
    await fh?.close();
  }
}

function tempPrefix(path: string): string {
  return `.${basename(path)}.`;
}
