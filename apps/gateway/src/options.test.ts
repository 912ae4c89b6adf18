import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LOG_LEVELS, parseBytes, parseOrigins, parseTrustedProxies } from './flagParsers.js';
import { resolveGatewayOptions } from './options.js';
import { mergeSettings } from './settings.js';

describe('resolveGatewayOptions', () => {
  it('defaults to loopback with a derived public URL and ./mcp.json, ./data', () => {
    expect(resolveGatewayOptions({})).toMatchObject({
      configPath: './mcp.json',
      dataDir: './data',
      host: '127.0.0.1',
      port: 3000,
      publicUrl: 'http://127.0.0.1:3000',
      trustedProxies: [],
    });
  });

  it('requires PUBLIC_URL when binding a non-loopback address', () => {
    expect(() => resolveGatewayOptions({ host: '0.0.0.0' })).toThrow(
      expect.objectContaining({ code: 'MCPP_GW_PUBLIC_URL_REQUIRED' }),
    );
    expect(resolveGatewayOptions({ host: '0.0.0.0', publicUrl: 'https://GW.example.com/' }).publicUrl).toBe(
      'https://gw.example.com',
    );
  });

  it('refuses a public URL with a path, and port 0 without a public URL', () => {
    expect(() => resolveGatewayOptions({ publicUrl: 'https://gw.example.com/base' })).toThrow(
      expect.objectContaining({ code: 'MCPP_CLI_USAGE' }),
    );
    expect(() => resolveGatewayOptions({ port: 0 })).toThrow(/--public-url is required with --port 0/);
  });
});

describe('parseTrustedProxies', () => {
  it('accepts addresses, CIDRs and named ranges', () => {
    expect(parseTrustedProxies('10.0.0.0/8, 127.0.0.1 ::1,fd00::/8 loopback')).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    expect(parseTrustedProxies(undefined)).toEqual([]);
  });
  it('refuses hop counts and booleans', () => {
    expect(() => parseTrustedProxies('1')).toThrow(/hop count/);
    expect(() => parseTrustedProxies('true')).toThrow(/not an address/);
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow();
  });
});

describe('parseBytes', () => {
  it('reads plain bytes and binary units', () => {
    expect(parseBytes('x', '1048576')).toBe(1_048_576);
    expect(parseBytes('x', '512kb')).toBe(524_288);
    expect(parseBytes('x', '4MB')).toBe(4_194_304);
    expect(parseBytes('x', undefined)).toBeUndefined();
    expect(() => parseBytes('MCP_BODY_LIMIT', '-1')).toThrow(/MCP_BODY_LIMIT/);
  });
});

describe('parseOrigins', () => {
  it('accepts origins and *, refuses paths', () => {
    expect(parseOrigins('https://app.example.com, http://localhost:6274')).toEqual([
      'https://app.example.com',
      'http://localhost:6274',
    ]);
    expect(parseOrigins('*')).toEqual(['*']);
    expect(() => parseOrigins('https://app.example.com/')).toThrow(/not an origin/);
  });
});

describe('--log-level', () => {
  it('accepts exactly the levels pino knows, and silent', () => {
    expect([...LOG_LEVELS].sort()).toEqual([...Object.keys(pino.levels.values), 'silent'].sort());
    for (const level of LOG_LEVELS) expect(resolveGatewayOptions({ logLevel: level }).logLevel).toBe(level);
    expect(resolveGatewayOptions({}).logLevel).toBe('info');
  });

  it('refuses another level with a usage error naming the flag or the variable, and the valid levels', () => {
    const valid = 'use one of trace, debug, info, warn, error, fatal, silent';
    expect(() => resolveGatewayOptions(mergeSettings({ logLevel: 'bogus' }, {}))).toThrow(
      expect.objectContaining({
        code: 'MCPP_CLI_USAGE',
        message: `--log-level: "bogus" is not a log level; ${valid}`,
      }),
    );
    expect(() => resolveGatewayOptions(mergeSettings({}, { LOG_LEVEL: 'verbose' }))).toThrow(
      expect.objectContaining({
        code: 'MCPP_CLI_USAGE',
        message: `LOG_LEVEL: "verbose" is not a log level; ${valid}`,
      }),
    );
  });
});
