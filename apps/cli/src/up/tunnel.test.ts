import { describe, expect, it } from 'vitest';
import { statusLine } from './tunnel.js';

const plan = { subdomain: 'trial', relayUrl: 'http://127.0.0.1:43100/tunnel/connect' };

describe('statusLine', () => {
  it('says once what to change for a subdomain held by another account (the relay reason already says it)', () => {
    const reason = 'subdomain "trial" is held by another account\'s live tunnel: pick another --subdomain';
    expect(statusLine({ status: 'refused', code: 'MCPP_TUNNEL_SUBDOMAIN_TAKEN', reason }, plan)).toBe(
      `tunnel refused: ${reason} — the local endpoint keeps serving`,
    );
  });

  it('adds what to change when the reason does not say it', () => {
    expect(
      statusLine(
        { status: 'refused', code: 'MCPP_TUNNEL_SUBDOMAIN_TAKEN', reason: 'subdomain "trial" is taken' },
        plan,
      ),
    ).toBe(
      'tunnel refused: subdomain "trial" is taken — the local endpoint keeps serving; choose another --subdomain than "trial"',
    );
    expect(
      statusLine(
        { status: 'refused', code: 'MCPP_TUNNEL_BAD_KEY', reason: 'the API key is unknown or revoked' },
        plan,
      ),
    ).toBe(
      'tunnel refused: the API key is unknown or revoked — the local endpoint keeps serving; check --api-key (or MCPPIPE_API_KEY)',
    );
  });

  it('a URL where no relay answers: the hint names the base URL, --tunnel-zone and the no-path rule', () => {
    const reason =
      'http://127.0.0.1:43100/tunnel/connect answered 404 (Not found) instead of a WebSocket upgrade';
    expect(statusLine({ status: 'refused', code: 'MCPP_TUNNEL_NO_RELAY', reason }, plan)).toBe(
      `tunnel refused: ${reason} — the local endpoint keeps serving; no relay at http://127.0.0.1:43100: is it a gateway started with --tunnel-zone, and is --tunnel its base URL (no path)?`,
    );
  });
});
