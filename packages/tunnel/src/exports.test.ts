import { expect, it } from 'vitest';
import * as api from './index.js';

it('exports exactly the public API', () => {
  expect(Object.keys(api).sort()).toEqual([
    'CLOSE_DEAD',
    'CLOSE_KEY_REVOKED',
    'CLOSE_RELAY_CLOSED',
    'CLOSE_REPLACED',
    'METADATA_HEADER',
    'PUBLIC_URL_HEADER',
    'SUBDOMAIN_HEADER',
    'Tunnel',
    'TunnelRegistry',
    'connectTunnel',
    'endToEndHeaders',
    'forwardToLoopback',
    'refuseUpgrade',
    'writeTunnelOffline',
  ]);
});
