/** Default maximum number of buckets a {@link MemoryBucketStore} keeps (about 100 bytes each plus the key). */
export const DEFAULT_MAX_BUCKETS = 100_000;

/** After an eviction sweep the memory store holds at most this fraction of its maximum. */
export const EVICT_TO_RATIO = 0.9;

/** How many (kind, name, caller) decisions a compiled policy remembers before it forgets them all. */
export const MAX_MEMO_DECISIONS = 50_000;
