/**
 * The default command: run the gateway. Every flag has an environment fallback (the names of seed 001:
 * `DATA_DIR`, `PUBLIC_URL`, `HOST`, `PORT`, `TRUSTED_PROXIES`, `MCP_BODY_LIMIT`, `LOG_FILE`).
 *
 * @module
 */
import type { Argv, CommandModule } from 'yargs';
import type { RawGatewayOptions } from '../options.js';

const env = (name: string): string | undefined => process.env[name] || undefined;

/** `mcppipe-gateway [flags]`. */
export const serveCommand: CommandModule<object, RawGatewayOptions> = {
  command: '$0',
  describe:
    'Serve every configured MCP server at /servers/<name>/mcp, the aggregate at /mcp and the hub at /hub, behind OAuth',
  builder: (y: Argv) =>
    y
      .option('config', {
        type: 'string',
        default: env('MCPPIPE_CONFIG') ?? './mcp.json',
        describe: 'The mcp.json file (watched for changes)',
      })
      .option('data-dir', {
        type: 'string',
        default: env('DATA_DIR') ?? './data',
        describe: 'State directory: jwt-key.pem, state.json [DATA_DIR]',
      })
      .option('public-url', {
        type: 'string',
        default: env('PUBLIC_URL'),
        describe: 'Public origin, e.g. https://gw.example.com; required unless binding loopback [PUBLIC_URL]',
      })
      .option('host', {
        type: 'string',
        default: env('HOST') ?? '127.0.0.1',
        describe: 'Address to bind [HOST]',
      })
      .option('port', { type: 'string', default: env('PORT') ?? '3000', describe: 'Port to bind [PORT]' })
      .option('trusted-proxies', {
        type: 'string',
        default: env('TRUSTED_PROXIES'),
        describe:
          'Proxy addresses/CIDRs whose X-Forwarded-For is trusted; never a hop count [TRUSTED_PROXIES]',
      })
      .option('body-limit', {
        type: 'string',
        default: env('MCP_BODY_LIMIT'),
        describe: 'Largest MCP request body, bytes or 4mb (default 4 MiB) [MCP_BODY_LIMIT]',
      })
      .option('log-file', {
        type: 'string',
        default: env('LOG_FILE'),
        describe: 'Also write logs to this file [LOG_FILE]',
      })
      .option('log-level', {
        type: 'string',
        default: env('LOG_LEVEL') ?? 'info',
        describe: 'Minimum log level [LOG_LEVEL]',
      })
      .option('rate-limit', {
        type: 'string',
        default: env('RATE_LIMIT_PER_MINUTE'),
        describe: 'Requests per client IP per minute before auth (default 1200) [RATE_LIMIT_PER_MINUTE]',
      })
      .option('client-rpm', {
        type: 'string',
        default: env('CLIENT_REQUESTS_PER_MINUTE'),
        describe: 'Requests per OAuth client per minute (default 600) [CLIENT_REQUESTS_PER_MINUTE]',
      })
      .option('allowed-origins', {
        type: 'string',
        default: env('ALLOWED_ORIGINS'),
        describe: 'Extra browser origins allowed on MCP endpoints (* = any) [ALLOWED_ORIGINS]',
      })
      .option('tunnel-zone', {
        type: 'string',
        default: env('MCPPIPE_TUNNEL_ZONE'),
        describe:
          'Turn on the tunnel relay: tunnels answer at <sub>--<account>.ZONE and <public-url>/t/<sub>--<account> [MCPPIPE_TUNNEL_ZONE]',
      })
      .option('redis', {
        type: 'string',
        default: env('MCPPIPE_REDIS_URL'),
        describe:
          'Share state with other nodes in this Redis, e.g. redis://redis:6379 (default: files in --data-dir) [MCPPIPE_REDIS_URL]',
      })
      .option('node-port', {
        type: 'string',
        default: env('MCPPIPE_NODE_PORT') ?? '3100',
        describe:
          'With --redis and --tunnel-zone: port of the node-to-node listener (never expose it publicly) [MCPPIPE_NODE_PORT]',
      })
      .option('node-url', {
        type: 'string',
        default: env('MCPPIPE_NODE_URL'),
        describe:
          'The URL other nodes reach this node-to-node listener at, e.g. http://10.0.0.5:3100 [MCPPIPE_NODE_URL]',
      })
      .option('client-concurrency', {
        type: 'string',
        default: env('CLIENT_CONCURRENCY'),
        describe: 'Requests per OAuth client in flight (default 16) [CLIENT_CONCURRENCY]',
      }) as unknown as Argv<RawGatewayOptions>,
  handler: async (args) => {
    const { resolveGatewayOptions } = await import('../options.js');
    const { startGateway } = await import('../server.js');
    const gateway = await startGateway(resolveGatewayOptions(args));
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      gateway.app.log.info({ signal }, 'signal received');
      void gateway.close().then(() => process.exit(0));
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  },
};
