/** The `mcppipe` command-line entry point (`node apps/cli/dist/cli.js up …`). */
import { startEarly } from './up/early.js';
import { trace } from './up/trace.js';

trace('cli entry');
// A closed stderr (`mcppipe up 2>&1 | head`) must not take the server down: logs are best effort.
process.stderr.on('error', () => {});
// Cold start: `up` spawns its stdio upstreams before yargs and the rest load (they are handed over later).
await startEarly(process.argv.slice(2));
const { main } = await import('./main.js');
trace('cli modules loaded');
await main(process.argv);
