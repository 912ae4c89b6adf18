/** The `mcppipe` command-line entry point (`node apps/cli/dist/cli.js up …`). */
import { main } from './main.js';

await main(process.argv);
