/**
 * `@mcppipe/test-utils` (private): fixture servers, reference-server paths, ports and waiting helpers.
 * Each area adds its own exports here; keep the list explicit.
 *
 * @module
 */
export { fixturePath, fixturesDir, referenceServerPath, sampleFilesDir } from './servers.js';
export type { ReferenceServer } from './servers.js';
export { freePort } from './net.js';
export { isPidAlive, waitFor } from './wait.js';
export type { WaitForOptions } from './wait.js';
export { cliPath, runCli, startCli } from './cli.js';
export type { RunningCli } from './cli.js';
export { isPidRunning, processTreePids, startFixtureServer, stopChild } from './processes.js';
export type { RunningFixtureServer } from './processes.js';
export { startPathRelay } from './relay.js';
export type { PathRelay } from './relay.js';
export { startRedis } from './redis.js';
export type { RunningRedis, StartRedisOptions } from './redis.js';
export { MemoryOAuthProvider } from './sdkOAuth.js';
export { zoneFetch } from './zoneFetch.js';
