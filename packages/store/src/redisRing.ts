import { findById, toJson } from './collectionUtil.js';
import type { RedisStore } from './redisStore.js';
import type { Ring, RingLimits } from './types.js';

// KEYS[1] = the list (oldest at the head), KEYS[2] = its byte count. ARGV: maxCount, maxBytes, ttl ms ('0' = none),
// then the records' JSON texts, oldest first (a flush's batch: keep it well under Lua's unpack limit of ~8000). Appends, then pops from the head until both bounds hold (one record is
// always kept). #s is the byte length, the same as Buffer.byteLength on the Node side.
const APPEND = `
local maxCount, maxBytes, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local bytes = tonumber(redis.call('GET', KEYS[2]) or '0')
if redis.call('EXISTS', KEYS[1]) == 0 then bytes = 0 end
for i = 4, #ARGV do bytes = bytes + #ARGV[i] end
local n = redis.call('RPUSH', KEYS[1], unpack(ARGV, 4))
while n > 1 and (n > maxCount or bytes > maxBytes) do
  bytes = bytes - #redis.call('LPOP', KEYS[1])
  n = n - 1
end
redis.call('SET', KEYS[2], bytes)
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return n`;

interface WithAppend {
  mcppipeRingAppend(list: string, bytes: string, ...args: string[]): Promise<number>;
}

/**
 * The Redis backend's ring: one list per key (`<prefix>~ring:<name>:<key>`, a `~` no collection name has) and its
 * byte count (`<prefix>~ringbytes:<name>:<key>`); an append is one Lua script per key, all keys of a flush in one pipeline.
 */
export class RedisRing<T extends { id: string }> implements Ring<T> {
  readonly #store: RedisStore;
  readonly #prefix: string;
  readonly #bytesPrefix: string;
  readonly #limits: RingLimits;

  constructor(store: RedisStore, name: string, limits: RingLimits) {
    this.#store = store;
    this.#prefix = `${store.keyPrefix}~ring:${name}:`;
    this.#bytesPrefix = `${store.keyPrefix}~ringbytes:${name}:`;
    this.#limits = limits;
    void store
      .run('define', async (r) => {
        if (!('mcppipeRingAppend' in r))
          r.defineCommand('mcppipeRingAppend', { numberOfKeys: 2, lua: APPEND });
      })
      .catch(() => undefined); // a closed store refuses the calls themselves
  }

  async appendMany(batches: Iterable<readonly [string, readonly T[]]>): Promise<void> {
    const { maxCount, maxBytes, ttlMs } = this.#limits;
    const head = [String(maxCount), String(maxBytes), String(ttlMs ?? 0)];
    const calls: Array<[string, string[]]> = [];
    for (const [key, records] of batches)
      if (records.length > 0) calls.push([key, [...head, ...records.map(toJson)]]);
    if (calls.length === 0) return;
    await this.#store.run('ring append', async (r) => {
      const p = r.pipeline() as unknown as WithAppend & { exec(): Promise<Array<[Error | null, unknown]>> };
      for (const [key, args] of calls)
        void p.mcppipeRingAppend(this.#prefix + key, this.#bytesPrefix + key, ...args);
      for (const [err] of (await p.exec()) ?? []) if (err) throw err;
    });
  }

  async list(key: string, limit?: number): Promise<T[]> {
    const from = limit === undefined ? 0 : -Math.max(0, Math.floor(limit));
    if (limit !== undefined && from === 0) return [];
    const texts = await this.#store.run('ring list', (r) => r.lrange(this.#prefix + key, from, -1));
    return texts.reverse().map((t) => JSON.parse(t) as T);
  }

  async get(key: string, id: string): Promise<T | undefined> {
    return findById<T>(await this.#store.run('ring get', (r) => r.lrange(this.#prefix + key, 0, -1)), id);
  }

  async clear(key: string): Promise<boolean> {
    return (
      (await this.#store.run('ring clear', (r) => r.del(this.#prefix + key, this.#bytesPrefix + key))) > 0
    );
  }
}
