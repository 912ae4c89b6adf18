/**
 * Tool policies and a call limit applied to raw JSON-RPC traffic (DESIGN.md P3, "the relay for each tunnel"): the
 * tunnel relay does not run an MCP server, it streams bytes, so it cannot put a {@link PolicyGate} in front of
 * handlers. {@link RelayGate} reads the one request body, asks the same {@link PolicyGate} (a denied `tools/call`
 * gets the error an unknown tool gets, via `toJsonRpcError`), takes a token from the tunnel's bucket, and filters
 * the `tools/list` answer (a JSON body or an SSE stream). The relay builds one only for tunnels with settings
 * that need it, so the plain relay path never parses anything.
 *
 * @module
 */
import { Transform } from 'node:stream';
import { ANONYMOUS, compilePolicy, rateLimitedError } from '@mcppipe/policy';
import type { BucketStore, Limiter, LimitResult, PolicyConfig } from '@mcppipe/policy';
import { createParser } from 'eventsource-parser';
import { toJsonRpcError, unknownNameError } from './errors.js';
import { PolicyGate } from './policyGate.js';
import { isObj } from './rewrite.js';

/** The per-tunnel rules a {@link RelayGate} enforces (the Settings API's `policies` and `limits`). */
export interface RelayRules {
  /** Globs on exposed names; a matching tool is hidden and refused. Deny wins over allow. */
  deny: readonly string[];
  /** Globs on exposed names; when non-empty, only matching tools are visible and callable. */
  allow: readonly string[];
  /** `tools/call` requests per minute for the whole tunnel (one token bucket, burst = the same number); null: no limit. */
  callsPerMinute: number | null;
}

/** Options of {@link RelayGate}. */
export interface RelayGateOptions {
  rules: RelayRules;
  /** Where the bucket lives (a Redis `BucketStore` for many relays). Default: a memory store of this gate. */
  store?: BucketStore;
  /** Prefix of the bucket key, unique per tunnel (e.g. `tunnel:<id>:`). */
  keyPrefix: string;
}

/** What {@link RelayGate.inspect} decided about a request body. */
export interface RelayVerdict {
  /** The JSON-RPC answer to send instead of forwarding (a refused call), or undefined to forward. */
  refusal?: unknown;
  /** Ids of `tools/list` requests in the body: their answers must go through {@link RelayGate.filterResponse}. */
  lists: ReadonlySet<string | number>;
}

type Msg = Record<string, unknown>;
const isId = (v: unknown): v is string | number => typeof v === 'string' || typeof v === 'number';

/**
 * Turns the Settings API's `{ deny, allow }` into a policy section: deny rules first, then allow rules, and the
 * default is `deny` when an allow list is given.
 *
 * @param rules - the tunnel's rules
 * @returns the `policies` section (`kind: 'tool'` rules for every caller)
 */
export function relayPolicyConfig(rules: Pick<RelayRules, 'deny' | 'allow'>): PolicyConfig {
  return {
    default: rules.allow.length > 0 ? 'deny' : 'allow',
    rules: [
      ...rules.deny.map((match) => ({ match, kind: 'tool' as const, action: 'deny' as const })),
      ...rules.allow.map((match) => ({ match, kind: 'tool' as const, action: 'allow' as const })),
    ],
  };
}

/** Whether a tunnel's rules need the relay to read its traffic at all. */
export function relayRulesActive(rules: RelayRules): boolean {
  return rules.deny.length > 0 || rules.allow.length > 0 || rules.callsPerMinute !== null;
}

/**
 * One tunnel's policy enforcement on raw JSON-RPC (P3). Build it once per settings change; it compiles its
 * rules once (the globs are never compiled per request).
 */
export class RelayGate {
  readonly #gate: PolicyGate;
  readonly #limiter: Limiter<LimitResult | Promise<LimitResult>> | undefined;

  /**
   * @param options - the rules, the bucket store and the tunnel's key prefix
   * @throws McpPipeError `MCPP_POLICY_INVALID` for a bad glob or limit
   */
  constructor(options: RelayGateOptions) {
    const { rules } = options;
    this.#gate = new PolicyGate({ policy: compilePolicy(relayPolicyConfig(rules)) });
    const n = rules.callsPerMinute;
    if (n === null) return;
    const limits = compilePolicy({ limits: [{ scope: 'all', rate: `${n}/min`, burst: n }] });
    const { keyPrefix } = options;
    this.#limiter =
      options.store === undefined
        ? limits.limiter({ keyPrefix })
        : limits.limiter({ store: options.store, keyPrefix });
  }

  /**
   * Checks a parsed request body (one message or a 2025-03-26 batch). A `tools/call` of a denied tool is refused
   * with -32602 `Unknown tool: "<name>"` (as an unknown tool); over the limit with -31429 and
   * `data: { retryAfterMs, limit }`. A batch with a refused call is answered with an error for each refused call
   * and is not forwarded.
   *
   * @param body - the parsed JSON body
   * @returns the refusal to send, or the `tools/list` ids to filter
   */
  async inspect(body: unknown): Promise<RelayVerdict> {
    const messages = Array.isArray(body) ? body : [body];
    const lists = new Set<string | number>();
    const refusals: unknown[] = [];
    for (const m of messages) {
      if (!isObj(m) || !isId(m['id'])) continue;
      if (m['method'] === 'tools/list') lists.add(m['id']);
      if (m['method'] !== 'tools/call') continue;
      const params = m['params'];
      const name = isObj(params) && typeof params['name'] === 'string' ? params['name'] : undefined;
      if (name === undefined) continue;
      const error = await this.#refuse(name);
      if (error !== undefined) refusals.push({ jsonrpc: '2.0', id: m['id'], error });
    }
    if (refusals.length === 0) return { lists };
    return { refusal: Array.isArray(body) ? refusals : refusals[0], lists };
  }

  async #refuse(name: string): Promise<unknown> {
    try {
      this.#gate.check({ kind: 'tool', name, caller: ANONYMOUS }, () => unknownNameError('tool', name));
      const result = await this.#limiter?.take(ANONYMOUS, name);
      if (result !== undefined && !result.ok) throw rateLimitedError(name, result);
      return undefined;
    } catch (err) {
      const e = toJsonRpcError(err);
      return { code: e.code, message: e.message, ...(e.data !== undefined && { data: e.data }) };
    }
  }

  /**
   * Filters one JSON-RPC message from the server: the result of a listed `tools/list` loses its denied tools.
   *
   * @param message - a parsed message (or batch)
   * @param lists - from {@link inspect}
   * @returns the message, filtered (the same object when nothing changed)
   */
  filterMessage(message: unknown, lists: ReadonlySet<string | number>): unknown {
    if (Array.isArray(message)) return message.map((m) => this.filterMessage(m, lists));
    if (!isObj(message) || !isId(message['id']) || !lists.has(message['id'])) return message;
    const result = message['result'];
    if (!isObj(result) || !Array.isArray(result['tools'])) return message;
    const tools = this.#gate.filter(result['tools'] as Msg[], {
      kind: 'tool',
      caller: ANONYMOUS,
      nameOf: (t) => String(t['name']),
    });
    return { ...message, result: { ...result, tools } };
  }

  /**
   * A stream that filters a response body of `contentType` (`application/json` is read whole; `text/event-stream`
   * is re-framed event by event, comments and `retry` kept).
   *
   * @param contentType - the response's `content-type`
   * @param lists - from {@link inspect}
   * @returns the transform, or undefined when the body needs none (pipe it as is)
   */
  filterResponse(contentType: string, lists: ReadonlySet<string | number>): Transform | undefined {
    if (lists.size === 0) return undefined;
    const type = contentType.split(';')[0]?.trim().toLowerCase();
    if (type === 'application/json') return this.#jsonFilter(lists);
    if (type === 'text/event-stream') return this.#sseFilter(lists);
    return undefined;
  }

  #rewrite(text: string, lists: ReadonlySet<string | number>): string {
    try {
      const parsed: unknown = JSON.parse(text);
      const filtered = this.filterMessage(parsed, lists);
      return filtered === parsed ? text : JSON.stringify(filtered);
    } catch {
      return text;
    }
  }

  #jsonFilter(lists: ReadonlySet<string | number>): Transform {
    const chunks: Buffer[] = [];
    return new Transform({
      transform(chunk: Buffer, _enc, done) {
        chunks.push(chunk);
        done();
      },
      flush: (done) => done(null, this.#rewrite(Buffer.concat(chunks).toString('utf8'), lists)),
    });
  }

  #sseFilter(lists: ReadonlySet<string | number>): Transform {
    let out: string[] = [];
    const parser = createParser({
      onEvent: (e) => {
        const lines = [
          ...(e.id !== undefined ? [`id: ${e.id}`] : []),
          ...(e.event !== undefined ? [`event: ${e.event}`] : []),
          ...this.#rewrite(e.data, lists)
            .split('\n')
            .map((l) => `data: ${l}`),
        ];
        out.push(`${lines.join('\n')}\n\n`);
      },
      onRetry: (ms) => out.push(`retry: ${ms}\n\n`),
      onComment: (c) => out.push(`: ${c}\n\n`),
    });
    const drain = (t: Transform): void => {
      if (out.length > 0) t.push(out.join(''));
      out = [];
    };
    const decoder = new TextDecoder();
    return new Transform({
      transform(chunk: Buffer, _enc, done) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        drain(this);
        done();
      },
      flush(done) {
        parser.feed(decoder.decode());
        parser.reset({ consume: true });
        drain(this);
        done();
      },
    });
  }
}
