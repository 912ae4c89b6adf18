import { describe, expect, it } from 'vitest';
import { givenFlags } from './flagReaders.js';

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
