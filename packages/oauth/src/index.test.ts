import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from './index.js';
import { normalizeResource, protectedResourceMetadataUrl } from './index.js';

describe('public surface', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ACCOUNTS_FILE",
        "AccountStore",
        "KEY_FILE",
        "OAUTH_PATHS",
        "STATE_FILE",
        "authenticateBearer",
        "authorizationServerMetadata",
        "bearerChallenge",
        "bearerTarget",
        "checkRedirectUri",
        "createOAuthProvider",
        "hashPassword",
        "matchRedirectUri",
        "normalizeResource",
        "protectedResourceMetadata",
        "protectedResourceMetadataUrl",
      ]
    `);
  });

  it('the built entry has no child_process', () => {
    const built = readFileSync(new URL('../dist/index.js', import.meta.url), 'utf8');
    expect(built).not.toMatch(/child_process/);
  });
});

describe('resources', () => {
  it('normalizes to one canonical form and rejects unusable values', () => {
    expect(normalizeResource('HTTPS://GW.Example:443/hub/')).toBe('https://gw.example/hub');
    expect(normalizeResource('https://gw.example')).toBe('https://gw.example');
    for (const bad of [
      'https://gw.example/hub#x',
      'https://gw.example/hub?x=1',
      'ftp://gw.example/hub',
      'hub',
      'https://u@gw.example/hub',
    ]) {
      expect(normalizeResource(bad)).toBeUndefined();
    }
  });

  it('inserts the well-known segment between host and path (RFC 9728 §3.1)', () => {
    expect(protectedResourceMetadataUrl('https://gw.example/servers/x/mcp')).toBe(
      'https://gw.example/.well-known/oauth-protected-resource/servers/x/mcp',
    );
    expect(protectedResourceMetadataUrl('https://gw.example/')).toBe(
      'https://gw.example/.well-known/oauth-protected-resource',
    );
  });
});
