import { describe, expect, it } from 'vitest';
import { commaList, envBoolean, flagsFromEnv, givenFlags } from './flagReaders.js';

const bound = ['host', 'port', 'allowed-origins'] as const;

describe('givenFlags', () => {
  it('names the flags given on the command line, in any spelling yargs reads, and not after --', () => {
    const argv = [
      'up',
      '--stdio',
      'a=node a.js --port 1',
      '--port=19100',
      '--allowedOrigins',
      'x',
      '--',
      '--host',
    ];
    expect([...givenFlags(argv, {}, bound)]).toEqual([
      ['port', '--port'],
      ['allowed-origins', '--allowed-origins'],
    ]);
  });

  it('names the variable of a flag given only in the environment (the command line wins)', () => {
    const env = { MCPPIPE_HOST: '0.0.0.0', MCPPIPE_PORT: '19100', MCPPIPE_PORTS: 'x' };
    expect([...givenFlags(['up', '--port', '19101'], env, bound)]).toEqual([
      ['host', 'MCPPIPE_HOST'],
      ['port', '--port'],
    ]);
  });

  it('is empty when every flag is left at its default', () => {
    expect(givenFlags(['up', '--transport', 'stdio', '--stdio', 'a=node a.js'], {}, bound).size).toBe(0);
  });
});

describe('flagsFromEnv', () => {
  it('reads boolean variables by their words, in any case', () => {
    for (const word of ['1', 'true', 'YES', 'On', ' yes '])
      expect(envBoolean('MCPPIPE_HUB', word), word).toBe(true);
    for (const word of ['0', 'false', 'No', 'OFF', ''])
      expect(envBoolean('MCPPIPE_HUB', word), word).toBe(false);
    expect(
      flagsFromEnv({ MCPPIPE_HUB: '1', MCPPIPE_STATELESS: 'off', MCPPIPE_HOLD_CHANGED_TOOLS: 'yes' }),
    ).toEqual({
      hub: true,
      stateless: false,
      'hold-changed-tools': true,
    });
  });

  it('refuses any other boolean value, naming the variable and the value', () => {
    expect(() => flagsFromEnv({ MCPPIPE_STATELESS: 'y' })).toThrow(
      'MCPPIPE_STATELESS must be 1, true, yes or on (or 0, false, no, off or empty), got "y"',
    );
  });

  it('splits list variables at commas, but not an upstream command or URL', () => {
    expect(commaList(['a, b', ',c,'])).toEqual(['a', 'b', 'c']);
    expect(
      flagsFromEnv({
        MCPPIPE_DENY_TOOL: 'memory__read_*, memory__search_*',
        MCPPIPE_ALLOW_IP: '10.0.0.0/8,192.0.2.1',
        MCPPIPE_STDIO: 'a=node a.js x,y',
        MCPPIPE_PORT: '19100',
      }),
    ).toEqual({
      'deny-tool': ['memory__read_*', 'memory__search_*'],
      'allow-ip': ['10.0.0.0/8', '192.0.2.1'],
      stdio: ['a=node a.js x,y'],
      port: '19100',
    });
  });
});
