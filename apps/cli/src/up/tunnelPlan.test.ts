import type { Layout } from '@mcppipe/config';
import { describe, expect, it } from 'vitest';
import type { TunnelFlags } from './tunnelPlan.js';
import { planTunnel } from './tunnelPlan.js';

const layout = { mode: 'single', upstreams: [{ name: 'a' }] } as unknown as Layout;
const flags = (tunnel: string): TunnelFlags => ({
  tunnel,
  apiKey: 'mcpp_key',
  subdomain: 'laptop',
  tunnelAuth: 'oauth',
  allowIp: [],
  zeroKnowledge: false,
  holdChangedTools: false,
});

describe('planTunnel: --tunnel is the relay’s base URL', () => {
  it('refuses a path up front (exit 2): the client would dial <path>/tunnel/connect, where no relay answers', () => {
    for (const given of ['http://127.0.0.1:43100/some/path', 'https://gw.example.com/tunnel/connect'])
      expect(() => planTunnel(flags(given), layout)).toThrow(
        expect.objectContaining({
          code: 'MCPP_CLI_USAGE',
          message: `--tunnel must be the relay's base URL without a path (/tunnel/connect is added), e.g. ${new URL(given).origin}; got ${JSON.stringify(given)}`,
        }),
      );
    // the documented form, with or without the trailing slash, gets the connect path
    expect(planTunnel(flags('http://127.0.0.1:43100'), layout)?.relayUrl).toBe(
      'http://127.0.0.1:43100/tunnel/connect',
    );
    expect(planTunnel(flags('https://gw.example.com/'), layout)?.relayUrl).toBe(
      'https://gw.example.com/tunnel/connect',
    );
  });
});
