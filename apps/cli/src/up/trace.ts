/**
 * Startup tracing for cold-start work: with `MCPPIPE_TRACE_STARTUP=1`, each step of `mcppipe up`'s start writes one
 * line `mcppipe-trace <ms since the process started> cpu=<its CPU ms> <event> [json]` to stderr. Off by default (one env lookup).
 * This module imports nothing, so it can be loaded first.
 */
const enabled = process.env['MCPPIPE_TRACE_STARTUP'] === '1';
// Not a flag: taken out before yargs reads `MCPPIPE_*` (strict), and not passed on to the upstreams.
delete process.env['MCPPIPE_TRACE_STARTUP'];

/** Whether startup tracing is on. */
export const tracing: boolean = enabled;

/**
 * Writes one trace line when tracing is on.
 *
 * @param event - a short name, e.g. `upstream spawned`
 * @param data - optional details, written as JSON
 */
export function trace(event: string, data?: Record<string, unknown>): void {
  if (!enabled) return;
  const cpu = process.cpuUsage();
  const cpuMs = ((cpu.user + cpu.system) / 1000).toFixed(0);
  const line = `mcppipe-trace ${performance.now().toFixed(1)} cpu=${cpuMs} ${event}${data ? ` ${JSON.stringify(data)}` : ''}\n`;
  try {
    process.stderr.write(line);
  } catch {
    // best effort
  }
}
