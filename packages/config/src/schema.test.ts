/**
 * The JSON Schemas in `schema/` (shipped for editor completion) must accept exactly what the
 * validators accept. Checked on a hand-written corpus and on a few thousand generated documents.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { validateMcpJson } from './mcpJson.js';
import { validateUpstreamsToml } from './upstreamsFile.js';

const load = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../schema/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

// strictTuples is a style lint (it wants closed tuples); `stdio` is deliberately an open tuple: [executable, ...args].
const ajv = new Ajv({ allErrors: true, strict: true, strictTuples: false });
const schemaValidates = {
  toml: ajv.compile(load('upstreams-file.schema.json')),
  json: ajv.compile(load('mcp-json.schema.json')),
};
const validatorAccepts = {
  toml: (doc: unknown) => validateUpstreamsToml(doc).ok,
  json: (doc: unknown) => validateMcpJson(doc).ok,
};

/** mulberry32: a tiny seeded PRNG, so generated corpora are the same on every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Values that exercise every rule, as [valid, invalid] pools. URL-like strings either do not start
// with http(s):// or ${ or parse as URLs: the one documented gap is tested below.
type Pool = readonly [good: readonly unknown[], bad: readonly unknown[]];
const NAMES: Pool = [
  ['a', 'search', 'fs-1', 'my_srv', 'a'.repeat(32)],
  ['Search', 'a__b', 'x_', '1a', 'my server', 'a'.repeat(33)],
];
const URLS: Pool = [
  ['http://x', 'https://x/mcp?a=b', 'HTTP://X', '${BASE}/mcp'],
  ['ftp://x', 'localhost:3001', '', 1],
];
const STRING_MAPS: Pool = [
  [{}, { A: '1', B: '${B}' }],
  [{ A: 1 }, { A: null }, 'A=1', ['A'], null],
];
const NON_EMPTY: Pool = [
  ['/srv', 'npx -y srv'],
  ['', '  ', 3, true],
];
const SECS: Pool = [
  [1, 0.5, 60],
  [0, -1, '5', null],
];
const BOOLS: Pool = [
  [true, false],
  ['no', 0],
];
const PROTOCOLS: Pool = [
  ['auto', 'legacy', 'modern'],
  ['v2', 1],
];

const TOML_VALUES: Record<string, Pool> = {
  http: URLS,
  stdio: [
    ['npx -y srv', ['node', 'a b.js'], ['node']],
    [' ', '', [], ['', 'a'], [1], ['a', 2], 5],
  ],
  env: STRING_MAPS,
  cwd: NON_EMPTY,
  headers: STRING_MAPS,
  start_timeout_secs: SECS,
  hub: BOOLS,
  protocol: PROTOCOLS,
  htp: [[], ['http://x']],
};

const JSON_VALUES: Record<string, Pool> = {
  command: NON_EMPTY,
  args: [
    [[], ['-y', 'srv']],
    [[1], 'a b', null],
  ],
  env: STRING_MAPS,
  cwd: NON_EMPTY,
  url: URLS,
  headers: STRING_MAPS,
  type: [
    ['stdio', 'http', 'streamable-http', 'sse'],
    ['ws', 1],
  ],
  hub: BOOLS,
  protocol: PROTOCOLS,
  startTimeoutSecs: SECS,
  comand: [[], ['x']],
};

function generate(
  random: () => number,
  values: Record<string, Pool>,
  shape: { list: string; transportKeys: readonly string[] },
): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  // A value from the valid pool most of the time, so that both outcomes are common.
  const value = (pool: Pool | undefined): unknown => {
    const [good, bad] = pool ?? [[], []];
    return good.length > 0 && (bad.length === 0 || random() < 0.85) ? pick(good) : pick(bad);
  };
  const entry = (): unknown => {
    if (random() < 0.03) return pick(['x', 1, [], null]);
    const out: Record<string, unknown> = {};
    // Most entries set one transport key, some both or neither.
    const r = random();
    const transports = r < 0.9 ? [pick(shape.transportKeys)] : r < 0.95 ? [...shape.transportKeys] : [];
    for (const key of transports) out[key] = value(values[key]);
    for (const key of Object.keys(values)) {
      if (!shape.transportKeys.includes(key) && random() < 0.15) out[key] = value(values[key]);
    }
    return out;
  };
  const r = random();
  if (r < 0.02) return pick([[], 'x', 1, null]);
  const doc: Record<string, unknown> = {};
  if (r < 0.04) doc['other'] = 1;
  if (r < 0.06) return doc;
  if (r < 0.08) doc[shape.list] = pick([[], 'x', {}]);
  else {
    const list: Record<string, unknown> = {};
    const count = 1 + Math.floor(random() * 2);
    for (let i = 0; i < count; i++) list[value(NAMES) as string] = entry();
    doc[shape.list] = list;
  }
  return doc;
}

describe('the JSON Schemas accept exactly what the validators accept', () => {
  it('upstreams file: hand-written corpus', () => {
    const corpus: [unknown, boolean][] = [
      [{ upstreams: { search: { http: 'http://127.0.0.1:3001' }, fs: { stdio: 'npx -y srv .' } } }, true],
      [
        {
          upstreams: {
            fs: {
              stdio: ['node', 'a.js'],
              env: { A: '1' },
              cwd: '/x',
              start_timeout_secs: 2,
              hub: false,
              protocol: 'modern',
            },
          },
        },
        true,
      ],
      [{ upstreams: { gh: { http: 'https://x', headers: { Authorization: 'Bearer ${T}' } } } }, true],
      [{ upstreams: {} }, false],
      [{}, false],
      [{ upstreams: { a: { http: 'http://x', stdio: 'x' } } }, false],
      [{ upstreams: { a: { hub: true } } }, false],
      [{ upstreams: { a: { http: 'http://x', env: {} } } }, false],
      [{ upstreams: { a: { stdio: 'x', headers: {} } } }, false],
      [{ upstreams: { a: { htp: 'http://x' } } }, false],
      [{ upstreams: { Search: { http: 'http://x' } } }, false],
      [{ upstreams: { a_: { http: 'http://x' } } }, false],
      [{ upstreams: { a: { http: 'http://x' } }, upstream: {} }, false],
    ];
    for (const [doc, valid] of corpus) {
      expect([doc, schemaValidates.toml(doc)]).toEqual([doc, valid]);
      expect([doc, validatorAccepts.toml(doc)]).toEqual([doc, valid]);
    }
  });

  it('mcp.json: hand-written corpus', () => {
    const corpus: [unknown, boolean][] = [
      [{ mcpServers: { memory: { command: 'npx', args: ['-y', 'srv'] } } }, true],
      [{ mcpServers: { gh: { type: 'http', url: 'https://x', headers: { A: 'b' }, hub: false } } }, true],
      [
        { mcpServers: { s: { type: 'sse', url: 'http://x/sse', protocol: 'auto', startTimeoutSecs: 5 } } },
        true,
      ],
      [{ mcpServers: { s: { type: 'stdio', command: 'x', env: { A: '1' }, cwd: '/' } } }, true],
      [{ $schema: 'x', globalShortcut: 'y', mcpServers: { a: { url: 'http://x' } } }, true],
      [{ mcpServers: {} }, false],
      [{ mcpServers: { a: { command: 'x', url: 'http://x' } } }, false],
      [{ mcpServers: { a: { type: 'sse', command: 'x' } } }, false],
      [{ mcpServers: { a: { type: 'stdio', url: 'http://x' } } }, false],
      [{ mcpServers: { a: { command: '' } } }, false],
      [{ mcpServers: { a: { comand: 'x' } } }, false],
      [{ mcpServers: { GitHub: { url: 'http://x' } } }, false],
    ];
    for (const [doc, valid] of corpus) {
      expect([doc, schemaValidates.json(doc)]).toEqual([doc, valid]);
      expect([doc, validatorAccepts.json(doc)]).toEqual([doc, valid]);
    }
  });

  it.each([
    ['toml', TOML_VALUES, { list: 'upstreams', transportKeys: ['http', 'stdio'] }],
    ['json', JSON_VALUES, { list: 'mcpServers', transportKeys: ['command', 'url'] }],
  ] as const)('%s: 3000 generated documents', (format, values, shape) => {
    const random = prng(format === 'toml' ? 1 : 2);
    let valid = 0;
    for (let i = 0; i < 3000; i++) {
      const doc = generate(random, values, shape);
      const expected = validatorAccepts[format](doc);
      expect([doc, schemaValidates[format](doc)]).toEqual([doc, expected]);
      if (expected) valid++;
    }
    // The corpus must exercise both sides.
    expect(valid).toBeGreaterThan(300);
    expect(valid).toBeLessThan(2700);
  });

  it('the known gap: a URL that starts with http(s):// but does not parse is only caught by the validator', () => {
    expect(schemaValidates.json({ mcpServers: { a: { url: 'http://' } } })).toBe(true);
    expect(validatorAccepts.json({ mcpServers: { a: { url: 'http://' } } })).toBe(false);
  });

  it('the package exports and ships the schemas', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, unknown>;
      files: string[];
    };
    expect(pkg.exports['./schema/*.json']).toBe('./schema/*.json');
    expect(pkg.files).toContain('schema');
    for (const name of ['upstreams-file.schema.json', 'mcp-json.schema.json']) {
      expect(load(name)['$id']).toBe(`https://unpkg.com/@mcppipe/config/schema/${name}`);
    }
  });
});
