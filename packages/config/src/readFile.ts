import { readFile } from 'node:fs/promises';
import { McpPipeError } from '@mcppipe/errors';

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
};

/** Why a file could not be read, in a few words (`no such file (ENOENT)`). */
export function describeReadError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return `${REASONS[code] ?? 'read failed'} (${code})`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Reads a UTF-8 text file, dropping a leading byte-order mark.
 *
 * @throws McpPipeError `MCPP_CFG_READ_FAILED` when the file cannot be read
 */
export async function readConfigText(path: string): Promise<string> {
  try {
    return stripBom(await readFile(path, 'utf8'));
  } catch (err) {
    throw new McpPipeError('MCPP_CFG_READ_FAILED', `cannot read ${path}: ${describeReadError(err)}`, {
      data: { path },
      cause: err,
    });
  }
}

/** `text` without a leading UTF-8 byte-order mark. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
