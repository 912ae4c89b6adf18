import { describe, expect, it } from 'vitest';
import { passThroughArgs, relativePathArgs, unusedFlagsMessage, unusedUpFlags } from './snippetFlags.js';

describe('config snippet flags', () => {
  it('passes the tool policy and the log level through, as given', () => {
    expect(
      passThroughArgs({
        'deny-tool': ['files__write_*', 'files__move_*'],
        'allow-tool': [],
        'log-level': 'debug',
      }),
    ).toEqual(['--deny-tool', 'files__write_*', '--deny-tool', 'files__move_*', '--log-level', 'debug']);
    expect(passThroughArgs({ 'deny-tool': [], 'allow-tool': [] })).toEqual([]);
  });

  it("refuses up's HTTP and detection flags, naming them and why", () => {
    expect(unusedUpFlags).toEqual(
      expect.arrayContaining(['port', 'host', 'hub', 'stateless', 'tunnel', 'yes']),
    );
    expect(unusedUpFlags).not.toContain('deny-tool');
    expect(unusedFlagsMessage(['port'])).toBe(
      '--port is not used by config snippet (the snippet runs mcppipe with --transport stdio)',
    );
    expect(unusedFlagsMessage(['port', 'hub'])).toBe(
      '--port and --hub are not used by config snippet (the snippet runs mcppipe with --transport stdio)',
    );
    expect(unusedFlagsMessage([])).toBeUndefined();
  });

  it('finds the arguments of a --stdio command that look like relative paths', () => {
    expect(relativePathArgs('fs=npx -y @modelcontextprotocol/server-filesystem .')).toEqual(['.']);
    expect(relativePathArgs('fs=node ./server.js ../data --root=./x "./quoted"')).toEqual([
      './server.js',
      '../data',
      '--root=./x',
      './quoted',
    ]);
    expect(relativePathArgs('fs=node /srv/server.js .hidden -y ...x v1.2')).toEqual([]);
  });
});
