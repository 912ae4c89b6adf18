import { describe, expect, it } from 'vitest';
import { earlySources } from './earlySources.js';

describe('earlySources', () => {
  it('reads the source flags of a plain `up` command line', () => {
    expect(
      earlySources(
        ['up', '--stdio', 'a=node a.js', 'b=node b.js', '--port', '0', '--hub', '--upstream=x=http://h/mcp'],
        {},
      ),
    ).toEqual({
      upstream: ['x=http://h/mcp'],
      stdio: ['a=node a.js', 'b=node b.js'],
      upstreamsFile: undefined,
    });
    expect(earlySources(['up', '--upstreams-file', 'demo.toml', '-y', '--log-format', 'json'], {})).toEqual({
      upstream: [],
      stdio: [],
      upstreamsFile: 'demo.toml',
    });
  });

  it('declines anything unusual: then nothing starts early', () => {
    for (const argv of [
      [],
      ['--help'],
      ['up', '--help'],
      ['up', '--stdio'],
      ['up', '--upstreamsFile', 'x.toml'],
      ['up', '--port'],
      ['up', '--hub=false'],
      ['up', 'extra'],
      ['up', '--upstreams-file', 'a.toml', '--upstreams-file', 'b.toml'],
      ['up', '--', '--stdio', 'node a.js'],
    ]) {
      expect(earlySources(argv, {}), argv.join(' ')).toBeUndefined();
    }
    expect(earlySources(['up', '--stdio', 'node a.js'], { MCPPIPE_STDIO: 'node b.js' })).toBeUndefined();
  });
});
