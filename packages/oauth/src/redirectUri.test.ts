import { describe, expect, it } from 'vitest';
import { checkRedirectUri, matchRedirectUri } from './redirectUri.js';

const allow = ['cursor'];

describe('checkRedirectUri (A5 registration matrix)', () => {
  it.each([
    'https://claude.ai/api/mcp/auth_callback',
    'https://claude.com/api/mcp/auth_callback',
    'http://localhost:33418/callback',
    'http://127.0.0.1/',
    'http://127.0.0.1:33418/',
    'http://[::1]:8080/cb',
    'https://vscode.dev/redirect',
    'cursor://anysphere.cursor-mcp/oauth/callback',
  ])('accepts %s', (uri) => {
    expect(checkRedirectUri(uri, allow)).toEqual({ ok: true });
  });

  it.each([
    'javascript:alert(1)',
    'JAVASCRIPT:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'vbscript:msgbox(1)',
    'blob:https://x/1',
    'about:blank',
    'http://example.com/cb',
    'http://127.0.0.1.evil.example/cb',
    'https://client.example/cb#frag',
    'https://user@client.example/cb',
    'https://user:pw@client.example/cb',
    'http://user@localhost/cb',
    'cursor2://x/cb',
    'myapp://cb',
    '/relative/cb',
    'https://client.example/ cb',
    'https://client.example\\@evil.example/cb',
    '',
  ])('refuses %s', (uri) => {
    expect(checkRedirectUri(uri, allow).ok).toBe(false);
  });
});

describe('matchRedirectUri (A5 authorize matrix)', () => {
  it('matches exactly, or loopback http with any port', () => {
    expect(matchRedirectUri(['https://claude.ai/cb'], 'https://claude.ai/cb')).toBe(true);
    expect(matchRedirectUri(['http://127.0.0.1/'], 'http://127.0.0.1:53124/')).toBe(true);
    expect(matchRedirectUri(['http://127.0.0.1:33418/'], 'http://127.0.0.1:4000/')).toBe(true);
    expect(matchRedirectUri(['http://localhost:3000/callback'], 'http://localhost:9999/callback')).toBe(true);
    expect(matchRedirectUri(['http://[::1]/cb'], 'http://[::1]:5/cb')).toBe(true);
  });

  it.each([
    'https://claude.ai/cb/extra',
    'https://Claude.ai/cb',
    'https://claude.ai/CB',
    'https://claude.ai/cb/',
    'https://claude.ai/cb?x=1',
    'https://claude.ai/cb#x',
    'http://claude.ai/cb',
  ])('refuses the unregistered variant %s', (presented) => {
    expect(matchRedirectUri(['https://claude.ai/cb'], presented)).toBe(false);
  });

  it('does not cross loopback hosts, paths or queries', () => {
    expect(matchRedirectUri(['http://127.0.0.1/cb'], 'http://localhost:80/cb')).toBe(false);
    expect(matchRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:5/cb2')).toBe(false);
    expect(matchRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:5/cb?x=1')).toBe(false);
    expect(matchRedirectUri(['http://127.0.0.1/cb'], 'http://u@127.0.0.1:5/cb')).toBe(false);
    expect(matchRedirectUri(['http://localhost/cb'], 'http://LOCALHOST:5/cb')).toBe(false);
  });
});
