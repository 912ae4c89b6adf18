import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from './index.js';

const srcDir = new URL('./', import.meta.url);
const distEntry = new URL('../dist/index.js', import.meta.url);

describe('@mcppipe/namespace public surface', () => {
  it('exports exactly these names (a change here is a public API change)', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "exposedNameLimits",
        "fitName",
        "fitNames",
        "isValidUpstreamName",
        "prefixName",
        "sanitizeUpstreamName",
        "sanitizeUpstreamNames",
        "splitName",
        "unwrapResourceTemplate",
        "unwrapResourceUri",
        "validateUpstreamName",
        "validateUpstreamNames",
        "wrapResourceTemplate",
        "wrapResourceUri",
      ]
    `);
  });

  it('is pure: sources import only each other and @mcppipe/errors, and use no Node globals', () => {
    const sources = readdirSync(srcDir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(sources.length).toBeGreaterThan(5);
    for (const file of sources) {
      const code = readFileSync(new URL(file, srcDir), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '');
      const imports = [...code.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]);
      for (const specifier of imports)
        expect(specifier, file).toMatch(/^(\.\/[A-Za-z0-9]+\.js|@mcppipe\/errors)$/);
      expect(code, file).not.toMatch(/\b(Buffer|process|require|console)\b/);
    }
  });

  it.skipIf(!existsSync(distEntry))('the built entry imports nothing but @mcppipe/errors', () => {
    const built = readFileSync(distEntry, 'utf8');
    const specifiers = [...built.matchAll(/\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']/g)].map(
      (m) => m[1] ?? m[2],
    );
    for (const specifier of specifiers) expect(specifier).toBe('@mcppipe/errors');
    expect(built).not.toMatch(/child_process|node:/);
  });
});

describe('README usage', () => {
  it('does what the README says', () => {
    expect(api.prefixName('fs', 'read_file')).toBe('fs__read_file');
    expect(api.splitName('fs__read_file')).toEqual({ upstream: 'fs', name: 'read_file' });
    expect(api.splitName('a__b__c')).toEqual({ upstream: 'a', name: 'b__c' });
    expect(api.wrapResourceUri('fs', 'file:///tmp/a.txt')).toBe('mcppipe://fs/ZmlsZTovLy90bXAvYS50eHQ');
    expect(api.unwrapResourceUri('mcppipe://fs/ZmlsZTovLy90bXAvYS50eHQ')).toEqual({
      upstream: 'fs',
      uri: 'file:///tmp/a.txt',
    });
    expect(api.wrapResourceTemplate('gh', 'repo://{owner}/{repo}/issues{/id}')).toBe(
      'mcppipe+t://gh/repo://{owner}/{repo}/issues{/id}',
    );
    expect(api.unwrapResourceUri('mcppipe+t://gh/repo://octo/hello/issues/7')).toEqual({
      upstream: 'gh',
      uri: 'repo://octo/hello/issues/7',
    });
    expect(api.unwrapResourceTemplate('mcppipe+t://gh/repo://{owner}/{repo}')).toEqual({
      upstream: 'gh',
      template: 'repo://{owner}/{repo}',
    });
    expect(api.fitName('gh', 'read_file')).toBe('gh__read_file');
    expect(api.fitName('github', 'x'.repeat(80), { maxLength: api.exposedNameLimits.cursor })).toMatch(
      /^github__x{43}-[0-9a-z]{8}$/,
    );
    expect(api.sanitizeUpstreamName('GitHub Copilot')).toBe('github-copilot');
    expect(api.sanitizeUpstreamName('my__server')).toBe('my_server');
    expect(api.sanitizeUpstreamName('1password')).toBe('srv-1password');
    expect(api.isValidUpstreamName('filesystem')).toBe(true);
    expect(api.isValidUpstreamName('Search')).toBe(false);
    expect(api.isValidUpstreamName('my__server')).toBe(false);
  });
});
