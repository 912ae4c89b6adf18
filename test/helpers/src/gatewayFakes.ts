/**
 * Test doubles for the gateway's tests: a verifier that accepts `tok.<clientId>.<base64url(resource)>` tokens and
 * counts its calls, and a pipeline stage counter. (The fake registry is {@link TestRegistry}.) Typed
 * structurally: test-utils imports neither the gateway nor `@mcppipe/oauth`.
 *
 * @module
 */
import type { AuthInfo } from '@modelcontextprotocol/server';

/** `@mcppipe/oauth`'s `TokenCheck`. */
export type FakeTokenCheck = { ok: true; authInfo: AuthInfo } | { ok: false; reason: string };

/** Encodes a fake token for {@link FakeVerifier}. */
export function fakeToken(clientId: string, resource: string): string {
  return `tok.${clientId}.${Buffer.from(resource).toString('base64url')}`;
}

/**
 * Accepts {@link fakeToken} tokens issued for the expected resource (compared in `normalizeResource` form, refused
 * with `@mcppipe/oauth`'s audience reason otherwise); counts calls.
 */
export class FakeVerifier {
  calls = 0;
  /** @param normalizeResource - `@mcppipe/oauth`'s `normalizeResource` (the one canonical form) */
  constructor(private readonly normalizeResource: (raw: string) => string | undefined) {}

  async checkAccessToken(token: string, expectedResource: string): Promise<FakeTokenCheck> {
    const normalizeResource = this.normalizeResource;
    this.calls++;
    const [prefix, clientId, encoded] = token.split('.');
    if (prefix !== 'tok' || !clientId || !encoded) return { ok: false, reason: 'invalid token' };
    const resource = Buffer.from(encoded, 'base64url').toString();
    if (normalizeResource(resource) !== normalizeResource(expectedResource)) {
      return { ok: false, reason: 'unexpected aud' };
    }
    return {
      ok: true,
      authInfo: {
        token,
        clientId,
        scopes: ['mcp'],
        resource: new URL(resource),
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
      },
    };
  }
}

/** Counts the outcomes of the gateway's pipeline stages (`S` is its `PipelineStage`). */
export function stageCounter<S extends string = string>(): {
  observer: (stage: S, outcome: 'pass' | 'reject') => void;
  count: (stage: S, outcome?: 'pass' | 'reject') => number;
  reset: () => void;
} {
  let seen: [S, 'pass' | 'reject'][] = [];
  return {
    observer: (stage, outcome) => void seen.push([stage, outcome]),
    count: (stage, outcome) =>
      seen.filter(([s, o]) => s === stage && (outcome === undefined || o === outcome)).length,
    reset: () => void (seen = []),
  };
}
