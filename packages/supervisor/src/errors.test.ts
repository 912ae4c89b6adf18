import { describe, expect, it } from 'vitest';
import { describeNetworkFailure } from './errors.js';

/** What `fetch` rejects with: a bare `fetch failed` whose cause carries the socket or TLS code. */
function fetchFailed(code: string, message = `${code} from the socket`): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });
}

const url = new URL('https://user:pw@mcp.example.test:8443/mcp?api_key=s3cret#x');

describe('describeNetworkFailure', () => {
  it.each([
    [
      'ECONNREFUSED',
      'connection refused at https://mcp.example.test:8443/mcp: nothing listens on mcp.example.test:8443; is the server running, and is the port right?',
    ],
    [
      'ENOTFOUND',
      'could not resolve host "mcp.example.test" (https://mcp.example.test:8443/mcp): check the host name in the URL',
    ],
    [
      'EAI_AGAIN',
      'could not resolve host "mcp.example.test" (https://mcp.example.test:8443/mcp): the DNS lookup failed temporarily; check the network and DNS',
    ],
    [
      'ECONNRESET',
      'connection reset by https://mcp.example.test:8443/mcp: the server closed the connection before answering',
    ],
    [
      'ETIMEDOUT',
      'connection to https://mcp.example.test:8443/mcp timed out: check the host, the port and any firewall in between',
    ],
    [
      'UND_ERR_CONNECT_TIMEOUT',
      'connection to https://mcp.example.test:8443/mcp timed out: check the host, the port and any firewall in between',
    ],
    [
      'CERT_HAS_EXPIRED',
      'TLS certificate of https://mcp.example.test:8443/mcp was not accepted (CERT_HAS_EXPIRED): use a certificate trusted for "mcp.example.test", or add its CA with NODE_EXTRA_CA_CERTS',
    ],
    [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'TLS certificate of https://mcp.example.test:8443/mcp was not accepted (UNABLE_TO_VERIFY_LEAF_SIGNATURE): use a certificate trusted for "mcp.example.test", or add its CA with NODE_EXTRA_CA_CERTS',
    ],
  ])('%s in words, with the URL but no credentials, query or fragment', (code, words) => {
    expect(describeNetworkFailure(fetchFailed(code), url)).toBe(words);
  });

  it('finds the code under an SDK wrapper and inside an AggregateError (IPv4 and IPv6 both refused)', () => {
    const both = Object.assign(
      new AggregateError([
        Object.assign(new Error('connect ECONNREFUSED ::1:8443'), { code: 'ECONNREFUSED' }),
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8443'), { code: 'ECONNREFUSED' }),
      ]),
      { code: undefined },
    );
    const wrapped = Object.assign(
      new Error('Version negotiation probe failed: fetch failed', {
        cause: new TypeError('fetch failed', { cause: both }),
      }),
      { code: 'ERA_NEGOTIATION_FAILED' },
    );
    expect(describeNetworkFailure(wrapped, url)).toMatch(
      /^connection refused at https:\/\/mcp\.example\.test:8443\/mcp:/,
    );
  });

  it('is undefined for errors that are not socket failures', () => {
    expect(describeNetworkFailure(new Error('HTTP 500'), url)).toBeUndefined();
    expect(describeNetworkFailure(new TypeError('fetch failed'), url)).toBeUndefined();
  });
});
