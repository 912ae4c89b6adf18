import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveGatewayOptions } from './options.js';
import { mergeSettings, SETTINGS, shownDefault } from './settings.js';

describe('mergeSettings', () => {
  it('a flag wins over its variable, and names record which one was used', () => {
    expect(
      mergeSettings(
        { port: '4000', bodyLimit: undefined },
        { PORT: '5000', MCP_BODY_LIMIT: '1mb', HOST: '' },
      ),
    ).toEqual({ port: '4000', bodyLimit: '1mb', names: { port: '--port', bodyLimit: 'MCP_BODY_LIMIT' } });
  });

  it('shows the variable or the built-in default in --help', () => {
    expect(shownDefault('port', { PORT: '5000' }, '3000')).toBe('"5000"');
    expect(shownDefault('port', {}, '3000')).toBe('"3000"');
    expect(shownDefault('bodyLimit', {})).toBeUndefined();
  });
});

describe('errors name what the user typed (the flag, or the variable from the environment)', () => {
  const problem = (flags: Record<string, string>, env: NodeJS.ProcessEnv) => {
    try {
      resolveGatewayOptions(mergeSettings(flags, env));
    } catch (err) {
      return { code: (err as { code?: string }).code, message: (err as Error).message };
    }
    throw new Error('no error');
  };

  it('--body-limit / MCP_BODY_LIMIT', () => {
    expect(problem({ bodyLimit: 'lots' }, {})).toEqual({
      code: 'MCPP_CLI_USAGE',
      message: '--body-limit: "lots" is not a size in bytes (e.g. 4194304 or 4mb)',
    });
    expect(problem({}, { MCP_BODY_LIMIT: 'lots' }).message).toBe(
      'MCP_BODY_LIMIT: "lots" is not a size in bytes (e.g. 4194304 or 4mb)',
    );
  });

  it('--trusted-proxies / TRUSTED_PROXIES', () => {
    const tail = `: "1" is not an address or CIDR (a hop count is not accepted; list the proxies' addresses, e.g. 10.0.0.0/8)`;
    expect(problem({ trustedProxies: '1' }, {}).message).toBe(`--trusted-proxies${tail}`);
    expect(problem({}, { TRUSTED_PROXIES: '1' }).message).toBe(`TRUSTED_PROXIES${tail}`);
  });

  it('the other checked settings', () => {
    expect(problem({}, { PORT: 'abc' }).message).toBe('PORT: "abc" is not a port');
    expect(problem({}, { RATE_LIMIT_PER_MINUTE: 'x' }).message).toBe(
      'RATE_LIMIT_PER_MINUTE: "x" is not a positive integer',
    );
    expect(problem({ allowedOrigins: 'https://a.example/' }, {}).message).toMatch(/^--allowed-origins: /);
    expect(problem({}, { MCPPIPE_TUNNEL_ZONE: 'a b' }).message).toMatch(/^MCPPIPE_TUNNEL_ZONE: /);
    expect(problem({}, { MCPPIPE_NODE_URL: 'https://x' }).message).toMatch(/^MCPPIPE_NODE_URL: /);
    expect(problem({ publicUrl: 'ftp://x' }, {}).message).toMatch(
      /^--public-url must be an http\(s\) origin/,
    );
  });
});

describe('docs/gateway.md "Flags and environment"', () => {
  const docs = readFileSync(new URL('../../../docs/gateway.md', import.meta.url), 'utf8');
  const rows = docs
    .split('\n')
    .filter((line) => line.startsWith('| `--') || line.startsWith('|  '))
    .map((line) => line.split('|').map((cell) => cell.trim()));

  it('is one table', () => {
    expect(docs.split('\n| flag ').length).toBe(2);
  });

  it('has exactly one row per flag, pairing it with its variable', () => {
    const flagRows = rows.filter(([, flag]) => flag?.startsWith('`--'));
    expect(flagRows.map(([, flag, env]) => `${flag} ${env}`)).toEqual(
      Object.values(SETTINGS).map(({ flag, env }) => `\`${flag}\` \`${env}\``),
    );
  });

  it('lists the settings read from the environment only', () => {
    const envOnly = rows.filter(([, flag]) => flag === '').map(([, , env]) => env);
    for (const name of [
      '`MCPPIPE_ADMIN_PASSWORD` / `MCPPIPE_ADMIN_PASSWORD_HASH`',
      '`MCPPIPE_API_TOKEN`',
      '`MCPPIPE_NODE_SECRET`',
      '`MCPPIPE_WEBHOOKS_ALLOW_PRIVATE`',
      '`MCPPIPE_HOLD_CHANGED_TOOLS`',
    ])
      expect(envOnly).toContain(name);
  });
});
