import { describe, expect, it } from 'vitest';
import { redactError, redactSpec } from './redact.js';

describe('redactSpec', () => {
  it('hides the URL userinfo and query, and header values', () => {
    expect(
      redactSpec({
        name: 'a',
        transport: 'http',
        url: 'http://user:pw@127.0.0.1:46998/mcp?key=QSECRET',
        headers: { Authorization: 'Bearer x' },
      }),
    ).toEqual({
      name: 'a',
      transport: 'http',
      url: 'http://[redacted]@127.0.0.1:46998/mcp?[redacted]',
      headers: { Authorization: '[redacted]' },
    });
  });
});

describe('redactError', () => {
  const spec = { name: 'a', transport: 'http', url: 'http://127.0.0.1:46998/mcp?key=${KEY}' } as const;

  it('hides the configured URL and the expanded one', () => {
    const text =
      'fetch to http://127.0.0.1:46998/mcp?key=QSECRET failed (http://127.0.0.1:46998/mcp?key=${KEY})';
    expect(redactError(text, spec, { KEY: 'QSECRET' })).toBe(
      'fetch to http://127.0.0.1:46998/mcp?[redacted] failed (http://127.0.0.1:46998/mcp?[redacted])',
    );
  });

  it('an unset variable or a stdio upstream leaves the text as it is (nothing to find)', () => {
    expect(redactError('boom', spec, {})).toBe('boom');
    expect(redactError('exit 1: ?x=1', { name: 's', transport: 'stdio', command: 'x' })).toBe('exit 1: ?x=1');
  });
});
