import { Redis } from 'ioredis';
import { checkTtl, collectionName, decideCas, toJson } from './collectionUtil.js';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_KEY_PREFIX,
  DEFAULT_MAX_RECONNECT_DELAY_MS,
  DEFAULT_MAX_UPDATE_ATTEMPTS,
} from './defaults.js';
import { fromRedisError, invalidOption, storeError } from './errors.js';
import { Subscribers } from './pubsub.js';
import type { Change, Collection, Store, StoreLogger } from './types.js';

/** Options of {@link openRedisStore}. */
export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** Prefix of every key and channel, so several deployments can share one Redis. Default `mcppipe:`. */
  keyPrefix?: string;
  /** A command unanswered after this many ms is refused with `MCPP_STORE_UNAVAILABLE`. Default 2000. */
  commandTimeoutMs?: number;
  /** The first connection's limit, ms. Default 5000. */
  connectTimeoutMs?: number;
  /** Longest wait between reconnect attempts, ms (they start at 50 ms and double). Default 2000. */
  maxReconnectDelayMs?: number;
  /** Lost races an `update` retries before `MCPP_STORE_CONFLICT`. Default 32. */
  maxUpdateAttempts?: number;
  logger?: StoreLogger;
}

// KEYS[1]; ARGV: expectPresent ('0'|'1'), expected JSON, op ('set'|'del'), value JSON, ttl ms ('0' = none)
const CAS = `
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then
  if cur then return 0 end
elseif cur ~= ARGV[2] then
  return 0
end
if ARGV[3] == 'del' then
  redis.call('DEL', KEYS[1])
elseif ARGV[5] ~= '0' then
  redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
else
  redis.call('SET', KEYS[1], ARGV[4])
end
return 1`;

interface WithCas {
  mcppipeCas(
    key: string,
    present: string,
    expected: string,
    op: string,
    value: string,
    ttl: string,
  ): Promise<number>;
}

/** `redis://user:***@host:port/db`: the URL as it may be logged or shown. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

function checkMs(name: string, v: number | undefined): void {
  if (v !== undefined && (!Number.isInteger(v) || v < 1))
    throw invalidOption(name, `must be a positive integer of milliseconds, got ${v}`);
}

/**
 * Checks a Redis URL and the options.
 *
 * @throws McpPipeError `MCPP_STORE_INVALID_OPTIONS`
 */
export function validateRedisOptions(options: RedisStoreOptions): void {
  let u: URL;
  try {
    u = new URL(options.url);
  } catch {
    throw invalidOption(
      '--redis / MCPPIPE_REDIS_URL',
      'is not a URL; use redis://host:6379 or rediss://host:6380',
    );
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw invalidOption(
      '--redis / MCPPIPE_REDIS_URL',
      `scheme ${JSON.stringify(u.protocol)} is not redis: or rediss:`,
    );
  checkMs('commandTimeoutMs', options.commandTimeoutMs);
  checkMs('connectTimeoutMs', options.connectTimeoutMs);
  checkMs('maxReconnectDelayMs', options.maxReconnectDelayMs);
  checkMs('maxUpdateAttempts', options.maxUpdateAttempts);
}

/**
 * Connects the Redis store (many nodes share it, S1). Every entry is one key `<prefix><collection>:<key>` holding
 * JSON; `compareAndSwap` is one Lua script and `update` is optimistic (read, decide, compare-and-swap, retry on a
 * lost race), so two nodes never both win a rotation. Commands are never queued while Redis is away: they reject
 * at once (or after `commandTimeoutMs`) with `MCPP_STORE_UNAVAILABLE`, while the client reconnects in the
 * background and re-subscribes its channels.
 *
 * @param options - URL and limits
 * @returns the connected store
 * @throws McpPipeError `MCPP_STORE_INVALID_OPTIONS`; `MCPP_STORE_UNAVAILABLE` when the first connection fails
 *
 * @example Many nodes
 * ```ts
 * const store = await openRedisStore({ url: process.env.MCPPIPE_REDIS_URL! });
 * const buckets = new RedisBucketStore(store); // for policy.limiter({ store: buckets })
 * ```
 */
export async function openRedisStore(options: RedisStoreOptions): Promise<RedisStore> {
  validateRedisOptions(options);
  const store = new RedisStore(options);
  await store.connect();
  return store;
}

/** The Redis backend of {@link Store}; created by {@link openRedisStore}. */
export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  /** The prefix of every key and channel. */
  readonly keyPrefix: string;
  /** The URL without its password. */
  readonly where: string;
  readonly #options: RedisStoreOptions;
  readonly #redis: Redis;
  readonly #subs: Subscribers;
  #sub: Redis | undefined;
  #closed = false;
  #down = false;

  /** Use {@link openRedisStore}. */
  constructor(options: RedisStoreOptions) {
    this.#options = options;
    this.keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.where = redactRedisUrl(options.url);
    this.#subs = new Subscribers(options.logger);
    this.#redis = this.#client();
    this.#redis.defineCommand('mcppipeCas', { numberOfKeys: 1, lua: CAS });
  }

  #client(): Redis {
    const max = this.#options.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_DELAY_MS;
    const client = new Redis(this.#options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResubscribe: true,
      commandTimeout: this.#options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      connectTimeout: this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 10), max),
    });
    client.on('error', () => undefined); // reported once per outage below, never thrown
    client.on('close', () => {
      if (this.#closed || this.#down) return;
      this.#down = true;
      this.#options.logger?.warn({ redis: this.where }, 'lost the connection to Redis; reconnecting');
    });
    client.on('ready', () => {
      if (!this.#down) return;
      this.#down = false;
      this.#options.logger?.warn({ redis: this.where }, 'reconnected to Redis');
    });
    return client;
  }

  /** Connects (called by {@link openRedisStore}). */
  async connect(): Promise<void> {
    try {
      await this.#redis.connect();
    } catch (err) {
      this.#redis.disconnect();
      throw fromRedisError(err, this.where, 'connect');
    }
  }

  /** Runs one Redis call with the store's error mapping (for the bucket store and other users of this connection). */
  async run<T>(op: string, call: (redis: Redis) => Promise<T>): Promise<T> {
    if (this.#closed)
      throw storeError('MCPP_STORE_CLOSED', 'the store was closed; no more operations are accepted');
    try {
      return await call(this.#redis);
    } catch (err) {
      throw fromRedisError(err, this.where, op);
    }
  }

  collection<T>(name: string): Collection<T> {
    const prefix = `${this.keyPrefix}${collectionName(name)}:`;
    const maxAttempts = this.#options.maxUpdateAttempts ?? DEFAULT_MAX_UPDATE_ATTEMPTS;
    const parse = (raw: string | null): T | undefined => (raw === null ? undefined : (JSON.parse(raw) as T));
    const cas = (key: string, expectedRaw: string | null, change: Change<unknown, unknown>) => {
      if (change.op === 'set') checkTtl(change.ttlMs);
      const value = change.op === 'set' ? toJson(change.value) : '';
      const ttl = change.op === 'set' && change.ttlMs !== undefined ? String(change.ttlMs) : '0';
      return this.run('compare-and-swap', (r) =>
        (r as unknown as WithCas).mcppipeCas(
          prefix + key,
          expectedRaw === null ? '0' : '1',
          expectedRaw ?? '',
          change.op === 'set' ? 'set' : 'del',
          value,
          ttl,
        ),
      );
    };
    return {
      get: async (key) => parse(await this.run('get', (r) => r.get(prefix + key))),
      set: async (key, value, options) => {
        checkTtl(options?.ttlMs);
        const json = toJson(value);
        await this.run('set', (r) =>
          options?.ttlMs === undefined
            ? r.set(prefix + key, json)
            : r.set(prefix + key, json, 'PX', options.ttlMs),
        );
      },
      delete: async (key) => (await this.run('delete', (r) => r.del(prefix + key))) > 0,
      entries: async () => {
        const keys = await this.run('scan', async (r) => {
          const found = new Set<string>();
          let cursor = '0';
          do {
            const [next, batch] = await r.scan(cursor, 'MATCH', `${globEscape(prefix)}*`, 'COUNT', 500);
            for (const k of batch) found.add(k);
            cursor = next;
          } while (cursor !== '0');
          return [...found];
        });
        const out: Array<[string, T]> = [];
        for (let i = 0; i < keys.length; i += 500) {
          const chunk = keys.slice(i, i + 500);
          const values = await this.run('mget', (r) => r.mget(chunk));
          chunk.forEach((k, j) => {
            const v = parse(values[j] ?? null);
            if (v !== undefined) out.push([k.slice(prefix.length), v]);
          });
        }
        return out;
      },
      compareAndSwap: async (key, { expected, next, ttlMs }) => {
        const change = decideCas(true, next, ttlMs) as Change<unknown, unknown>;
        return (await cas(key, expected === undefined ? null : toJson(expected), change)) === 1;
      },
      update: async <R>(key: string, fn: (current: T | undefined) => Change<T, R>) => {
        for (let attempt = 0; attempt < maxAttempts; attempt++) {
          const raw = await this.run('get', (r) => r.get(prefix + key));
          const change = fn(parse(raw));
          if (change.op === 'keep') return change.result;
          if (change.op === 'delete' && raw === null) return change.result;
          if ((await cas(key, raw, change)) === 1) return change.result;
          // lost the race: back off a random while (up to 64 ms) so many contenders spread out
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(2 ** attempt, 64)));
        }
        throw storeError(
          'MCPP_STORE_CONFLICT',
          `the update of ${JSON.stringify(name)} entry ${JSON.stringify(key)} lost the race ${maxAttempts} times to other writers; nothing was written, retry the request`,
        );
      },
    };
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.run('publish', (r) => r.publish(this.keyPrefix + channel, message));
  }

  async subscribe(channel: string, fn: (message: string) => void): Promise<() => Promise<void>> {
    const sub = await this.#subscriber();
    const full = this.keyPrefix + channel;
    if (this.#subs.add(full, fn)) {
      try {
        await this.run('subscribe', () => sub.subscribe(full));
      } catch (err) {
        this.#subs.remove(full, fn);
        throw err;
      }
    }
    return async () => {
      if (this.#subs.remove(full, fn) && !this.#closed)
        await this.run('unsubscribe', () => sub.unsubscribe(full));
    };
  }

  async #subscriber(): Promise<Redis> {
    if (this.#sub) return this.#sub;
    const sub = this.#client();
    sub.on('message', (channel: string, message: string) => this.#subs.deliver(channel, message));
    this.#sub = sub;
    try {
      await this.run('connect', () => sub.connect());
    } catch (err) {
      this.#sub = undefined;
      sub.disconnect();
      throw err;
    }
    return sub;
  }

  async ping(): Promise<void> {
    await this.run('ping', (redis) => redis.ping());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#subs.clear();
    await Promise.all([this.#redis, this.#sub].map((c) => c && quit(c)));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

async function quit(client: Redis): Promise<void> {
  try {
    if (client.status === 'ready') await client.quit();
  } catch {
    // the connection is gone anyway
  } finally {
    client.disconnect();
  }
}

function globEscape(s: string): string {
  return s.replace(/[*?[\]\\]/g, '\\$&');
}
