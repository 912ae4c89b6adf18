/**
 * The default command: run the gateway. Every flag has an environment fallback (`SETTINGS`: the names of seed 001,
 * `DATA_DIR`, `PUBLIC_URL`, `HOST`, `PORT`, `TRUSTED_PROXIES`, `MCP_BODY_LIMIT`, `LOG_FILE`, …). yargs gets no
 * defaults: the flags given are merged with the environment by `mergeSettings`, which remembers which was used.
 *
 * @module
 */
import type { Argv, CommandModule, Options } from 'yargs';
import type { RawGatewayOptions } from '../options.js';
import { mergeSettings, SETTINGS, shownDefault } from '../settings.js';
import type { SettingKey } from '../settings.js';

/** A string flag of `key`, described with its variable; `--help` shows the variable's value or `fallback`. */
const flag = (key: SettingKey, describe: string, fallback?: string): Options => ({
  type: 'string',
  defaultDescription: shownDefault(key, process.env, fallback),
  describe: `${describe} [${SETTINGS[key].env}]`,
});

/** `mcppipe-gateway [flags]`. */
export const serveCommand: CommandModule<object, RawGatewayOptions> = {
  command: '$0',
  describe:
    'Serve every configured MCP server at /servers/<name>/mcp, the aggregate at /mcp and the hub at /hub, behind OAuth',
  builder: (y: Argv) =>
    y
      .option('config', flag('config', 'The mcp.json file (watched for changes)', './mcp.json'))
      .option('data-dir', flag('dataDir', 'State directory: jwt-key.pem, state.json', './data'))
      .option(
        'public-url',
        flag('publicUrl', 'Public origin, e.g. https://gw.example.com; required unless binding loopback'),
      )
      .option('host', flag('host', 'Address to bind', '127.0.0.1'))
      .option('port', flag('port', 'Port to bind', '3000'))
      .option(
        'trusted-proxies',
        flag('trustedProxies', 'Proxy addresses/CIDRs whose X-Forwarded-For is trusted; never a hop count'),
      )
      .option('body-limit', flag('bodyLimit', 'Largest MCP request body, bytes or 4mb (default 4 MiB)'))
      .option('log-file', flag('logFile', 'Also write logs to this file'))
      .option('log-level', flag('logLevel', 'Minimum log level', 'info'))
      .option('rate-limit', flag('rateLimit', 'Requests per client IP per minute before auth (default 1200)'))
      .option('client-rpm', flag('clientRpm', 'Requests per OAuth client per minute (default 600)'))
      .option(
        'allowed-origins',
        flag('allowedOrigins', 'Extra browser origins allowed on MCP endpoints (* = any)'),
      )
      .option(
        'tunnel-zone',
        flag(
          'tunnelZone',
          'Turn on the tunnel relay: tunnels answer at <sub>--<account>.ZONE and <public-url>/t/<sub>--<account>',
        ),
      )
      .option(
        'redis',
        flag(
          'redis',
          'Share state with other nodes in this Redis, e.g. redis://redis:6379 (default: files in --data-dir)',
        ),
      )
      .option(
        'node-port',
        flag(
          'nodePort',
          'With --redis and --tunnel-zone: port of the node-to-node listener (never expose it publicly)',
          '3100',
        ),
      )
      .option(
        'node-url',
        flag('nodeUrl', 'The URL other nodes reach this node-to-node listener at, e.g. http://10.0.0.5:3100'),
      )
      .option(
        'client-concurrency',
        flag('clientConcurrency', 'Requests per OAuth client in flight (default 16)'),
      ) as unknown as Argv<RawGatewayOptions>,
  handler: async (args) => {
    const { resolveGatewayOptions } = await import('../options.js');
    const { startGateway } = await import('../server.js');
    const gateway = await startGateway(resolveGatewayOptions(mergeSettings(args, process.env)));
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
