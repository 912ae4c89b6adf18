import { afterEach, describe, expect, it, vi } from 'vitest';
import yargs from 'yargs';
import { upCommand } from '../commands/up.js';
import type { UpArgs } from '../commands/up.js';
import { fastUpArgs } from './fastArgs.js';
import { envVariable, flagKinds } from './flagReaders.js';
import { upOptions } from './flags.js';

/** What yargs hands `up`'s handler for `argv` under `env` (the real builder: table, variables, coercions). */
async function viaYargs(argv: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  let got: Record<string, unknown> | undefined;
  await yargs(argv)
    .command({ ...upCommand, handler: (a) => void (got = a as unknown as Record<string, unknown>) })
    .strict()
    .fail((msg, err) => {
      throw err ?? new Error(msg);
    })
    .parseAsync();
  if (!got) throw new Error('the handler did not run');
  return got;
}

const camelKeys = Object.keys(upOptions).map((f) =>
  f.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
);

describe('fastUpArgs: `up` parsed without yargs', () => {
  afterEach(() => vi.unstubAllEnvs());

  const agreeing: [argv: string[], env: Record<string, string>][] = [
    [['up'], {}],
    [
      ['up', '--stdio', 'a=node a.js', 'b=node b.js', '--port', '0', '--hub', '--upstream=x=http://h/mcp'],
      {},
    ],
    [['up', '--upstreams-file', 'demo.toml', '-y', '--log-format', 'json', '--log-level', 'warn'], {}],
    [['up', '--stdio', 'a=node a.js', '--stdio', 'b=node b.js', '--yes'], {}],
    [
      [
        'up',
        '--transport',
        'stdio',
        '--deny-tool',
        'a__*',
        'b__write_*',
        '--allow-tool=c__*',
        '--allowed-origins',
        'https://app.example',
        '--allowed-hosts',
        'box.local',
      ],
      {},
    ],
    [
      [
        'up',
        '--tunnel',
        'https://gw.example',
        '--api-key',
        'k1',
        '--subdomain',
        'demo',
        '--tunnel-auth',
        'api-key',
        '--allow-ip',
        '10.0.0.0/8',
        '--zero-knowledge',
        '--hold-changed-tools',
      ],
      {},
    ],
    [
      [
        'up',
        '--port=9000',
        '--max-sessions',
        '5',
        '--session-idle-secs',
        '60',
        '--body-limit',
        '1000',
        '--metrics-addr',
        '127.0.0.1:9464',
        '--stateless',
        '--host',
        '0.0.0.0',
      ],
      {},
    ],
    [['up'], { MCPPIPE_PORT: '9001', MCPPIPE_TRANSPORT: 'stdio', MCPPIPE_LOG_LEVEL: 'debug' }],
    [['up', '--port', '9002', '--log-level', 'error'], { MCPPIPE_PORT: '9001', MCPPIPE_LOG_LEVEL: 'debug' }],
    [['up', '--stdio', 'a=node a.js'], { MCPPIPE_CMD: 'unrelated', MCPPIPE_UPSTREAM_MAX_RESTARTS: '3' }],
    [
      ['up'],
      { MCPPIPE_HUB: '1', MCPPIPE_STATELESS: 'Yes', MCPPIPE_YES: 'on', MCPPIPE_ZERO_KNOWLEDGE: 'TRUE' },
    ],
    [
      ['up'],
      { MCPPIPE_HUB: '0', MCPPIPE_STATELESS: 'no', MCPPIPE_YES: 'OFF', MCPPIPE_HOLD_CHANGED_TOOLS: '' },
    ],
    [
      ['up'],
      {
        MCPPIPE_DENY_TOOL: 'memory__read_*, memory__search_*',
        MCPPIPE_ALLOW_TOOL: 'memory__*',
        MCPPIPE_ALLOWED_ORIGINS: 'https://a.example,https://b.example',
        MCPPIPE_ALLOW_IP: '10.0.0.0/8,192.0.2.1',
        MCPPIPE_STDIO: 'a=node a.js --list x,y',
      },
    ],
  ];

  it.each(agreeing)('reads %j (env %j) exactly as yargs does', async (argv, env) => {
    const fast = fastUpArgs(argv, env);
    expect(fast).toBeDefined();
    const slow = await viaYargs(argv, env);
    expect(Object.keys(fast as UpArgs).sort()).toEqual([...camelKeys].sort());
    for (const key of camelKeys)
      expect((fast as unknown as Record<string, unknown>)[key], key).toEqual(slow[key]);
  });

  it('reads every boolean variable as 1/true/yes/on or 0/false/no/off/empty, both ways', async () => {
    for (const flag of flagKinds.boolean) {
      const variable = envVariable(flag);
      const key = flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      for (const [text, want] of [
        ['1', true],
        ['0', false],
        ['Yes', true],
        ['', false],
      ] as const) {
        expect((fastUpArgs(['up'], { [variable]: text }) as unknown as Record<string, unknown>)[key]).toBe(
          want,
        );
        expect((await viaYargs(['up'], { [variable]: text }))[key], `${variable}=${text}`).toBe(want);
        vi.unstubAllEnvs();
      }
    }
  });

  it('splits a glob variable at commas and refuses a bad one naming the variable, both ways', async () => {
    const env = { MCPPIPE_DENY_TOOL: 'memory__read_*,memory__search_*' };
    expect(fastUpArgs(['up'], env)?.denyTool).toEqual(['memory__read_*', 'memory__search_*']);
    expect((await viaYargs(['up'], env))['denyTool']).toEqual(['memory__read_*', 'memory__search_*']);
    vi.unstubAllEnvs();
    const bad = { MCPPIPE_ALLOW_TOOL: 'memory__read_* memory__search_*' };
    const message = 'MCPPIPE_ALLOW_TOOL "memory__read_* memory__search_*" has whitespace';
    expect(() => fastUpArgs(['up'], bad)).toThrow(message);
    await expect(viaYargs(['up'], bad)).rejects.toThrow(message);
  });

  it('refuses any other boolean value naming the variable and the value, both ways', async () => {
    const message = 'MCPPIPE_HUB must be 1, true, yes or on (or 0, false, no, off or empty), got "maybe"';
    expect(() => fastUpArgs(['up'], { MCPPIPE_HUB: 'maybe' })).toThrow(message);
    await expect(viaYargs(['up'], { MCPPIPE_HUB: 'maybe' })).rejects.toThrow(message);
  });

  it('leaves to yargs whatever yargs reads or reports in its own way', () => {
    const declined: [string[], Record<string, string>][] = [
      [[], {}],
      [['--version'], {}],
      [['config', 'snippet', '--client', 'cursor'], {}],
      [['up', '--help'], {}],
      [['up', '--version'], {}],
      [['up', 'extra'], {}],
      [['up', '--', '--hub'], {}],
      [['up', '--stdoi', 'a=node a.js'], {}],
      [['up', '--logLevel', 'debug'], {}],
      [['up', '--no-hub'], {}],
      [['up', '--hub=false'], {}],
      [['up', '--hub', 'true'], {}],
      [['up', '--hub', '--hub'], {}],
      [['up', '--port'], {}],
      [['up', '--port', 'abc'], {}],
      [['up', '--port', '-1'], {}],
      [['up', '--port', '1', '--port', '2'], {}],
      [['up', '--transport', 'grpc'], {}],
      [['up', '--stdio'], {}],
      [['up', '--stdio', '"node a.js"'], {}],
      [['up', '--host='], {}],
      [['up', '-port', '1'], {}],
      [['up'], { MCPPIPE_PORT: 'abc' }],
      [['up'], { MCPPIPE_TRANSPORT: 'grpc' }],
    ];
    for (const [argv, env] of declined)
      expect(fastUpArgs(argv, env), JSON.stringify([argv, env])).toBeUndefined();
  });

  it('yargs refuses every single-value flag given twice, naming it (not as a value "19100 19101")', async () => {
    const example: Record<string, string> = { transport: 'http', 'log-level': 'info', 'log-format': 'json' };
    example['tunnel-auth'] = 'oauth';
    for (const flag of flagKinds.value) {
      const value = example[flag] ?? '19100';
      await expect(viaYargs(['up', `--${flag}`, value, `--${flag}`, value], {}), flag).rejects.toThrow(
        `--${flag} was given twice: it takes one value`,
      );
    }
    await expect(viaYargs(['up', '--port', '1', '--port', '2', '--port', '3'], {})).rejects.toThrow(
      '--port was given 3 times',
    );
  });
});
