import { describe, expect, it } from 'vitest';
import { hasUrlCredentials, redactUrl, redactUrlsIn } from './redactUrl.js';

describe('redactUrl', () => {
  it.each([
    ['http://127.0.0.1:46998/mcp?key=QSECRET', 'http://127.0.0.1:46998/mcp?[redacted]'],
    ['http://user:pw@127.0.0.1:46999/mcp?token=S', 'http://[redacted]@127.0.0.1:46999/mcp?[redacted]'],
    ['https://me@example.com/mcp#frag', 'https://[redacted]@example.com/mcp#[redacted]'],
    ['http://127.0.0.1:3001/mcp', 'http://127.0.0.1:3001/mcp'],
    ['https://${HOST}/mcp?key=${KEY}', 'https://${HOST}/mcp?[redacted]'],
    ['http://host/path@with-at', 'http://host/path@with-at'],
    ['not a url?x=1', 'not a url?x=1'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('hasUrlCredentials: only an @ in the authority', () => {
    expect(hasUrlCredentials('http://user:pw@h/mcp')).toBe(true);
    expect(hasUrlCredentials('http://${USER}@h/mcp')).toBe(true);
    expect(hasUrlCredentials('http://h/mcp?email=a@b')).toBe(false);
    expect(hasUrlCredentials('http://h/a@b')).toBe(false);
  });

  it('redactUrlsIn: every known URL in a text, as written and as fetch prints it', () => {
    const text =
      'Version negotiation probe failed: Request cannot be constructed from a URL that includes credentials: http://user:pw@host/?token=S (HTTP://user:pw@HOST?token=S)';
    const out = redactUrlsIn(text, ['HTTP://user:pw@HOST?token=S']);
    expect(out).toBe(
      'Version negotiation probe failed: Request cannot be constructed from a URL that includes credentials: http://[redacted]@host/?[redacted] (HTTP://[redacted]@HOST?[redacted])',
    );
    expect(redactUrlsIn('nothing here', ['http://h/?a=1'])).toBe('nothing here');
  });
});
