import { fixturePath } from '@mcppipe/test-utils';
import { DEFAULT_INHERITED_ENV_VARS, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { Supervisor } from '../index.js';
import {
  INHERITED_ENV_VARS,
  MARK_CHILD,
  MARK_ID,
  MARK_PID,
  MARK_START,
  inheritedEnvironment,
} from '../stdio.js';

const T = 60_000;

describe('E8: the environment of a stdio child', () => {
  it('the inherited set is exactly the SDK getDefaultEnvironment set', () => {
    expect([...INHERITED_ENV_VARS]).toEqual([...DEFAULT_INHERITED_ENV_VARS]);
    expect(inheritedEnvironment(process.env)).toEqual(getDefaultEnvironment());
    expect(inheritedEnvironment({ PATH: '/bin', SHELL: '() { :; }; evil', X: 'y' })).toEqual({
      PATH: '/bin',
    });
  });

  it(
    'E8: a child sees PATH/HOME and its configured env, never MCPPIPE_* secrets, PUBLIC_URL, DATA_DIR or API keys',
    async () => {
      const parent = {
        PATH: process.env['PATH'],
        HOME: '/home/e8-test',
        MCPPIPE_ADMIN_PASSWORD: 'admin-secret-e8',
        MCPPIPE_FOO: 'foo',
        PUBLIC_URL: 'https://gw.example',
        DATA_DIR: '/var/lib/mcppipe',
        SOME_API_KEY: 'sk-e8',
        PASSED_ON_PURPOSE: 'on-purpose',
      };
      await using sup = new Supervisor({
        env: parent,
        upstreams: [
          {
            name: 'env',
            transport: 'stdio',
            command: process.execPath,
            args: [fixturePath('sup-basic.mjs')],
            env: { CONFIGURED: 'yes', TOKEN: '${PASSED_ON_PURPOSE}' },
          },
        ],
      });
      await sup.start();
      expect(sup.get('env')!.phase, sup.get('env')!.lastError).toBe('available');
      const result = await sup.request('env', {
        method: 'tools/call',
        params: { name: 'environ', arguments: {} },
      });
      const env = JSON.parse((result['content'] as Array<{ text: string }>)[0]!.text) as Record<
        string,
        string
      >;
      for (const key of ['MCPPIPE_ADMIN_PASSWORD', 'MCPPIPE_FOO', 'PUBLIC_URL', 'DATA_DIR', 'SOME_API_KEY'])
        expect(env[key], key).toBeUndefined();
      expect(JSON.stringify(env)).not.toContain('admin-secret-e8');
      expect(env['PATH']).toBe(process.env['PATH']);
      expect(env['HOME']).toBe('/home/e8-test');
      expect(env['CONFIGURED']).toBe('yes');
      expect(env['TOKEN']).toBe('on-purpose');
      expect(env['PASSED_ON_PURPOSE']).toBeUndefined();
      // the only MCPPIPE_* variables are the supervisor's own orphan marks (no secrets)
      expect(
        Object.keys(env)
          .filter((k) => k.startsWith('MCPPIPE_'))
          .sort(),
      ).toEqual([MARK_CHILD, MARK_ID, MARK_PID, MARK_START].sort());
      expect(env[MARK_ID]).toBe(sup.id);
    },
    T,
  );
});
