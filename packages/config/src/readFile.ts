import { readFile } from 'node:fs/promises';
import { readFailedError } from './errors.js';

/**
 * Reads a UTF-8 text file, dropping a leading byte-order mark.
 *
 * @throws McpPipeError `MCPP_CFG_READ_FAILED` when the file cannot be read
 */
export async function readConfigText(path: string): Promise<string> {
  try {
    return stripBom(await readFile(path, 'utf8'));
  } catch (err) {
    throw readFailedError(path, err);
  }
}

/** `text` without a leading UTF-8 byte-order mark. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
