import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from './index.js';
import { parseMcpJson } from './mcpJson.js';
import { parseUpstreamsToml } from './upstreamsFile.js';

describe('@mcppipe/config surface', () => {
  it('exports exactly these values (types are checked by the compiler)', () => {
    expect(Object.keys(api).sort()).toEqual([
      'DEFAULT_DEBOUNCE_MS',
      'DEFAULT_POLL_INTERVAL_MS',
      'clientConfigFiles',
      'clientNames',
      'clientSnippet',
      'closestName',
      'deepEqual',
      'detectClientServers',
      'diffLayouts',
      'expandUpstream',
      'expandVariables',
      'fieldExpander',
      'formatCliSource',
      'hasUrlCredentials',
      'layoutFromDetected',
      'loadMcpJson',
      'loadUpstreamsFile',
      'parseMcpJson',
      'parseUpstreamsToml',
      'redactUrl',
      'redactUrlsIn',
      'resolveCliSources',
      'snippetClients',
      'snippetRunner',
      'splitCliSource',
      'validateMcpJson',
      'validateUpstreamsToml',
      'watchConfig',
      'withFlagSuggestions',
    ]);
    expect(api.DEFAULT_POLL_INTERVAL_MS).toBe(3000);
    expect(api.DEFAULT_DEBOUNCE_MS).toBe(300);
  });

  it('the entry has no export * and no child_process', () => {
    const source = readFileSync(new URL('./index.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/export \*/);
    expect(source).not.toMatch(/child_process/);
  });

  it('the README examples are valid', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const block = (lang: string): string => {
      const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(readme);
      if (!m?.[1]) throw new Error(`no ${lang} block in the README`);
      return m[1];
    };
    expect(parseUpstreamsToml(block('toml'), 'README.md').upstreams.map((u) => u.name)).toEqual([
      'filesystem',
      'local',
      'search',
    ]);
    expect(parseMcpJson(block('json'), 'README.md').upstreams.map((u) => u.name)).toEqual([
      'files',
      'github',
      'memory',
    ]);
  });
});
