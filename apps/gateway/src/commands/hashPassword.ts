/**
 * `mcppipe-gateway hash-password`: reads the owner password from stdin (or a no-echo prompt on a
 * terminal) and prints its bcrypt hash for `MCPPIPE_ADMIN_PASSWORD_HASH`.
 *
 * @module
 */
import { createInterface } from 'node:readline';
import type { CommandModule } from 'yargs';

/**
 * Reads a password: all of stdin when it is not a terminal (one trailing newline removed), otherwise a
 * prompt on stderr that never echoes.
 *
 * @returns the password
 */
export async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    let text = '';
    for await (const chunk of process.stdin) text += String(chunk);
    return text.replace(/\r?\n$/, '');
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  process.stderr.write('Password: ');
  const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput;
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  const answer = await new Promise<string>((resolve) => rl.question('', resolve));
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = write;
  rl.close();
  process.stderr.write('\n');
  return answer;
}

/** `hash-password`. */
export const hashPasswordCommand: CommandModule = {
  command: 'hash-password',
  describe: 'Print a bcrypt hash of a password (read from stdin) for MCPPIPE_ADMIN_PASSWORD_HASH',
  handler: async () => {
    const { hashPassword } = await import('@mcppipe/oauth');
    process.stdout.write(`${await hashPassword(await readPassword())}\n`);
  },
};
