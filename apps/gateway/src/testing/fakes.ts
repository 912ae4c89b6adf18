/**
 * Test doubles for the gateway's unit tests (not exported from the package): a registry whose upstreams
 * answer from handlers, and a verifier that accepts `tok.<clientId>.<base64url(resource)>` tokens and
 * counts its calls.
 *
 * @module
 */
import { EventEmitter } from 'node:events';
import { McpPipeError } from '@mcppipe/errors';
import type {
  ForwardedRequest,
  UpstreamRegistry,
  UpstreamRequestOptions,
  UpstreamSnapshot,
} from '@mcppipe/supervisor';
import type { Phase } from '@mcppipe/upstream-state';
import { normalizeResource, type TokenCheck } from '@mcppipe/oauth';
import type { PipelineObserver, PipelineStage, TokenVerifier } from '../types.js';

/** Answers one forwarded request of a fake upstream. */
export type FakeHandler = (
  request: ForwardedRequest,
  options: UpstreamRequestOptions,
) => Promise<Record<string, unknown>>;

/** A registry of fake upstreams. */
export class FakeRegistry extends EventEmitter implements UpstreamRegistry {
  readonly snapshots = new Map<string, UpstreamSnapshot>();
  readonly handlers = new Map<string, FakeHandler>();
  readonly requests: { name: string; request: ForwardedRequest; options: UpstreamRequestOptions }[] = [];

  add(name: string, handler: FakeHandler, extra: Partial<UpstreamSnapshot> = {}): this {
    this.snapshots.set(name, {
      name,
      spec: { name, transport: 'stdio', command: 'fake' },
      phase: 'available',
      client: undefined,
      capabilities: { tools: {} },
      serverInfo: { name: `${name}-server`, version: '1.2.3' },
      instructions: undefined,
      protocolVersion: '2025-11-25',
      era: 'legacy',
      lastError: undefined,
      lastChangeAt: 0,
      pid: undefined,
      generation: 1,
      connectedVia: 'stdio',
      retryAfterMs: undefined,
      stderrTail: [],
      ...extra,
    });
    this.handlers.set(name, handler);
    return this;
  }

  setPhase(name: string, phase: Phase): void {
    const s = this.snapshots.get(name);
    if (s) this.snapshots.set(name, { ...s, phase, lastChangeAt: Date.now() });
  }

  list(): UpstreamSnapshot[] {
    return [...this.snapshots.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
  get(name: string): UpstreamSnapshot | undefined {
    return this.snapshots.get(name);
  }
  async request(name: string, request: ForwardedRequest, options: UpstreamRequestOptions = {}) {
    this.requests.push({ name, request, options });
    const s = this.snapshots.get(name);
    const handler = this.handlers.get(name);
    if (!s || !handler) throw new McpPipeError('MCPP_SUP_UNKNOWN_UPSTREAM', `unknown upstream ${name}`);
    if (s.phase !== 'available') {
      throw new McpPipeError('MCPP_SUP_UNAVAILABLE', `${name} is ${s.phase}`, {
        data: { upstream: name, phase: s.phase, retryAfterMs: 1000 },
      });
    }
    return handler(request, options);
  }
  async notify(): Promise<void> {}
  async reinitialize(): Promise<void> {}
  setUpstreamRequestHandler(): void {}
}

/** Encodes a fake token for {@link FakeVerifier}. */
export function fakeToken(clientId: string, resource: string): string {
  return `tok.${clientId}.${Buffer.from(resource).toString('base64url')}`;
}

/**
 * Accepts {@link fakeToken} tokens issued for the expected resource (compared in `normalizeResource` form, refused
 * with `@mcppipe/oauth`'s audience reason otherwise); counts calls.
 */
export class FakeVerifier implements TokenVerifier {
  calls = 0;
  async checkAccessToken(token: string, expectedResource: string): Promise<TokenCheck> {
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

/** Counts stage outcomes. */
export function stageCounter(): {
  observer: PipelineObserver;
  count: (stage: PipelineStage, outcome?: 'pass' | 'reject') => number;
  reset: () => void;
} {
  let seen: [PipelineStage, 'pass' | 'reject'][] = [];
  return {
    observer: (stage, outcome) => void seen.push([stage, outcome]),
    count: (stage, outcome) =>
      seen.filter(([s, o]) => s === stage && (outcome === undefined || o === outcome)).length,
    reset: () => void (seen = []),
  };
}
