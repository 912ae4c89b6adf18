import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from './index.js';
import { normalizeResource, protectedResourceMetadataUrl, sha256 } from './index.js';

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
        "sha256",
      ]
    `);
  });

  it('the built entry has no child_process', () => {
    const built = readFileSync(new URL('../dist/index.js', import.meta.url), 'utf8');
    expect(built).not.toMatch(/child_process/);
  });
});

describe('sha256', () => {
  it('is the SHA-256 of the UTF-8 bytes, 32 bytes (FIPS 180-2 vector "abc"; a non-ASCII text)', () => {
    const abc = sha256('abc');
    expect(abc).toBeInstanceOf(Buffer);
    expect(abc.toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(
      sha256('é').equals(
        createHash('sha256')
          .update(Buffer.from([0xc3, 0xa9]))
          .digest(),
      ),
    ).toBe(true);
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
