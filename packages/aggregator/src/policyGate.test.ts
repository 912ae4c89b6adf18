import { isMcpPipeError } from '@mcppipe/errors';
import { compilePolicy } from '@mcppipe/policy';
import type { ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createPolicyGate } from './policyGate.js';
import type { PolicyRefusal } from './policyGate.js';

const tools = [{ name: 'fs__read_file' }, { name: 'fs__write_file' }, { name: 'memory__search' }];
const view = (caller: string) => ({ kind: 'tool' as const, caller, nameOf: (t: { name: string }) => t.name });
const ctxOf = (clientId?: string) =>
  ({
    http: clientId === undefined ? undefined : { authInfo: { clientId, token: 't', scopes: [] } },
  }) as unknown as ServerContext;

describe('PolicyGate', () => {
  it('filters lists: the input array itself when nothing is hidden, the same filtered array per list and caller', () => {
    const gate = createPolicyGate({
      policy: compilePolicy({ rules: [{ match: 'fs__write_*', callers: ['bot'], action: 'deny' }] }),
    });
    expect(gate.filter(tools, view('alice'))).toBe(tools);
    const forBot = gate.filter(tools, view('bot'));
    expect(forBot.map((t) => t.name)).toEqual(['fs__read_file', 'memory__search']);
    expect(gate.filter(tools, view('bot'))).toBe(forBot);
  });

  it('identifies callers by OAuth client id, else anonymous', () => {
    const gate = createPolicyGate();
    expect(gate.callerOf(ctxOf('client-1'))).toBe('client-1');
    expect(gate.callerOf(ctxOf())).toBe('anonymous');
  });

  it('refuses a denied name with the host error, limits after the allow check, counts both, logs once a minute per caller and name', () => {
    const refusals: PolicyRefusal[] = [];
    const logs: object[] = [];
    let now = 0;
    const log = (obj: object) => void logs.push(obj);
    const gate = createPolicyGate({
      policy: compilePolicy({
        rules: [{ match: 'fs__write_*', action: 'deny' }],
        limits: [{ scope: 'caller+tool', match: 'memory__search', rate: '10/min', burst: 1 }],
      }),
      onRefusal: (r) => refusals.push(r),
      logger: { debug: log, info: log, warn: log, error: log },
      now: () => now,
    });
    const unknown = new Error('Unknown tool: "fs__write_file"');
    expect(() => gate.check({ kind: 'tool', name: 'fs__write_file', caller: 'a' }, () => unknown)).toThrow(
      unknown,
    );
    expect(() => gate.check({ kind: 'tool', name: 'fs__write_file', caller: 'a' }, () => unknown)).toThrow(
      unknown,
    );
    gate.take('memory__search', 'a');
    let limited: unknown;
    try {
      gate.take('memory__search', 'a');
    } catch (err) {
      limited = err;
    }
    expect(isMcpPipeError(limited, 'MCPP_POLICY_RATE_LIMITED')).toBe(true);
    expect((limited as { data: { retryAfterMs: number } }).data.retryAfterMs).toBeGreaterThan(0);
    gate.take('memory__search', 'b'); // another caller passes
    expect(refusals.map((r) => [r.reason, r.name, r.caller])).toEqual([
      ['denied', 'fs__write_file', 'a'],
      ['denied', 'fs__write_file', 'a'],
      ['limited', 'memory__search', 'a'],
    ]);
    expect(logs).toHaveLength(2); // the second denial within a minute is not logged again
    now = 60_000;
    expect(() => gate.check({ kind: 'tool', name: 'fs__write_file', caller: 'a' }, () => unknown)).toThrow();
    expect(logs).toHaveLength(3);
  });

  it('set() swaps the policy atomically; undefined turns enforcement off', () => {
    const gate = createPolicyGate({ policy: compilePolicy({ default: 'deny' }) });
    expect(gate.filter(tools, view('a'))).toEqual([]);
    gate.set(compilePolicy({ rules: [{ match: 'memory__*', action: 'deny' }] }));
    expect(gate.filter(tools, view('a')).map((t) => t.name)).toEqual(['fs__read_file', 'fs__write_file']);
    gate.set(undefined);
    expect(gate.filter(tools, view('a'))).toBe(tools);
  });
});
