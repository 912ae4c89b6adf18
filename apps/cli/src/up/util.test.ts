import { describe, expect, it } from 'vitest';
import { listenFailed } from './util.js';

const hint = { host: '--host (or MCPPIPE_HOST)', port: '--port (or MCPPIPE_PORT)' };
const failure = (code: string, message = `listen ${code}`) => Object.assign(new Error(message), { code });

describe('listenFailed', () => {
  it('blames the host for an address this machine does not have (EADDRNOTAVAIL), or a name that does not resolve', () => {
    const err = listenFailed(failure('EADDRNOTAVAIL'), { host: '10.255.255.1', port: 19122, hint });
    expect(err.code).toBe('MCPP_CLI_LISTEN_FAILED');
    expect(err.message).toBe(
      'cannot listen on 10.255.255.1:19122: the address is not available on this machine; choose another with --host (or MCPPIPE_HOST)',
    );
    expect(
      listenFailed(failure('ENOTFOUND', 'getaddrinfo ENOTFOUND nowhere.invalid'), {
        host: 'nowhere.invalid',
        port: 19122,
        hint,
      }).message,
    ).toBe(
      'cannot listen on nowhere.invalid:19122: getaddrinfo ENOTFOUND nowhere.invalid; choose another with --host (or MCPPIPE_HOST)',
    );
  });

  it('blames the port for a taken or privileged port, and for anything else', () => {
    const at = { host: '127.0.0.1', port: 80, hint };
    expect(listenFailed(failure('EADDRINUSE'), at).message).toBe(
      'cannot listen on 127.0.0.1:80: the address is already in use; choose another with --port (or MCPPIPE_PORT)',
    );
    expect(listenFailed(failure('EACCES'), at).message).toBe(
      'cannot listen on 127.0.0.1:80: permission denied; choose another with --port (or MCPPIPE_PORT)',
    );
    expect(listenFailed(new Error('boom'), at).message).toBe(
      'cannot listen on 127.0.0.1:80: boom; choose another with --port (or MCPPIPE_PORT)',
    );
  });
});
