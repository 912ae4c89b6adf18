/** The `mcppipe` command-line entry point (`node apps/cli/dist/cli.js up …`). */
import { main } from './main.js';

// A closed stderr (`mcppipe up 2>&1 | head`) must not take the server down: logs are best effort.
process.stderr.on('error', () => {});
await main(process.argv);
