/** Options for {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this many ms. Default 10 000. */
  timeoutMs?: number;
  /** Poll interval in ms. Default 20. */
  intervalMs?: number;
  /** Text for the timeout error. */
  message?: string;
}

/**
 * Polls `check` until it returns a truthy value (or a promise of one) and returns that value.
 *
 * @throws Error when `timeoutMs` passes first
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = 10_000, intervalMs = 20, message = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}`, { cause: lastError });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Whether a process with this pid exists (signal 0).
 *
 * @param pid - a process id
 */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
