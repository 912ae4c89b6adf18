/**
 * `@mcppipe/test-utils` (private): fixture servers, reference-server paths, ports and waiting helpers.
 * Each area adds its own exports here; keep the list explicit.
 *
 * @module
 */
export { fixturePath, fixturesDir, referenceServerPath, sampleFilesDir } from './servers.js';
export type { ReferenceServer } from './servers.js';
export { freePort, hasIpv6Loopback } from './net.js';
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
export { RAW, TestRegistry } from './registry.js';
export type {
  FakeHandler,
  SnapshotBase,
  TestPhase,
  TestRegistryOptions,
  TestRequest,
  TestRequestOptions,
  TestSnapshot,
  TestUpstreamRequestHandler,
  TestUpstreamSpec,
} from './registry.js';
export { captureLogger } from './logger.js';
export type { LogEntry, TestLogger } from './logger.js';
export { connectHttp, connectInMemory, httpAgent, memoryAgent } from './agents.js';
export type { ServerFactory, TestAgent, TestAgentOptions, TestClient } from './agents.js';
export { startHttpHarness } from './httpHarness.js';
export type { HarnessTarget, HttpHarness } from './httpHarness.js';
export { agentList, allPages, rpcError, startLayout, text } from './layout.js';
export type { TestLayout } from './layout.js';
export { callToolWith, data, demoUpstreams, errorOf, meta } from './metaTools.js';
export { killUpstream, startSupervisor } from './supervised.js';
export type {
  StartSupervisorOptions,
  SupervisorLike,
  TestStdioSpec,
  TestSupervisorOptions,
  TestUpstream,
} from './supervised.js';
export { FakeVerifier, fakeToken, stageCounter } from './gatewayFakes.js';
export type { FakeTokenCheck } from './gatewayFakes.js';
export {
  HUB,
  ISSUER,
  MCP,
  PASSWORD,
  REDIRECT,
  SERVER_X,
  SERVER_Y,
  authorizeQuery,
  browserFlow,
  exchange,
  harness,
  harnessPerTest,
  json,
  pkce,
  refresh,
  register,
  req,
  tokensFor,
} from './oauthHarness.js';
export type {
  CreateOAuthProvider,
  Harness,
  OAuthHarnessOptions,
  OAuthHttpRequest,
  OAuthHttpResponse,
  OAuthProviderLike,
  Pkce,
} from './oauthHarness.js';
export { MemoryOAuthProvider, TestClientProvider, ownerApproves } from './sdkOAuth.js';
export { zoneFetch } from './zoneFetch.js';
export { parseSse, readSse, sseJson } from './sse.js';
export { MCP_POST_HEADERS, RAW_PROTOCOL_VERSION, openRawSession, postInitialize } from './rawMcp.js';
export type { RawInitializeOptions, RawSessionHeaders } from './rawMcp.js';
export type { ReadSseOptions, SseEvent } from './sse.js';
