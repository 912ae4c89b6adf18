/**
 * Zero-knowledge tunnels (DESIGN.md T7): the relay forwards the bytes of one HTTP upstream unparsed, so only a
 * single-upstream layout whose upstream is a local `http://` server can be served that way.
 *
 * @module
 */
import type { HttpUpstreamConfig, Layout } from '@mcppipe/config';
import { expandUpstream } from '@mcppipe/config';
import { usage } from './util.js';

/** Seed 000's reason, quoted in the exit-2 message for `--zero-knowledge` with an aggregator layout (T7). */
export const ZERO_KNOWLEDGE_AGGREGATOR_REASON =
  'Zero-knowledge mode routes raw bytes and disables JSON-RPC parsing, so it cannot prefix or fan out — it is not compatible with the aggregator. Use it on a single-upstream tunnel.';

/**
 * The upstream a `--zero-knowledge` tunnel relays, with its `${VAR}`s expanded.
 *
 * @param layout - the resolved layout
 * @param env - where the upstream's variables are read. Default `process.env`
 * @returns the layout's one HTTP upstream, expanded
 * @throws McpPipeError `MCPP_CLI_USAGE` (exit 2) for an aggregator layout (seed 000's reason), a stdio upstream, or
 *   an upstream URL that is not `http://`
 */
export function zeroKnowledgeUpstream(
  layout: Layout,
  env: NodeJS.ProcessEnv = process.env,
): HttpUpstreamConfig {
  const only = layout.upstreams[0];
  if (layout.mode !== 'single' || layout.upstreams.length !== 1 || !only)
    throw usage(
      `--zero-knowledge cannot serve ${layout.upstreams.length} upstreams: ${ZERO_KNOWLEDGE_AGGREGATOR_REASON}`,
    );
  if (only.transport !== 'http')
    throw usage(
      '--zero-knowledge needs an HTTP upstream (--upstream URL): a stdio server speaks JSON-RPC lines, which the CLI must parse to serve them over HTTP, so its traffic cannot be relayed unparsed. Serve it over Streamable HTTP, or drop --zero-knowledge.',
    );
  const expanded = expandUpstream(only, env);
  if (new URL(expanded.url).protocol !== 'http:')
    throw usage(
      `--zero-knowledge relays bytes to an http:// upstream; ${JSON.stringify(only.name)} is ${new URL(expanded.url).protocol}// (serve it on a local http:// address, or drop --zero-knowledge)`,
    );
  return expanded;
}
