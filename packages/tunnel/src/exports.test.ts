import { expect, it } from 'vitest';
import * as api from './index.js';

it('exports exactly the public API', () => {
  expect(Object.keys(api).sort()).toEqual([
    'CLOSE_DEAD',
    'CLOSE_KEY_REVOKED',
    'CLOSE_RELAY_CLOSED',
    'CLOSE_REPLACED',
    'DEFAULT_LEASE_TTL_MS',
    'METADATA_HEADER',
    'MIN_NODE_SECRET_LENGTH',
    'NODE_SECRET_HEADER',
    'PUBLIC_URL_HEADER',
    'SUBDOMAIN_HEADER',
    'TUNNEL_AUTH_HEADER',
    'Tunnel',
    'TunnelCluster',
    'TunnelRegistry',
    'connectTunnel',
    'endToEndHeaders',
    'forwardToLoopback',
    'refuseUpgrade',
    'serveInProcess',
    'writeTunnelOffline',
  ]);
});
