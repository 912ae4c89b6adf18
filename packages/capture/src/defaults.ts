/** Bytes of each captured body (request and response) kept per exchange: 64 KiB (issue 19). */
export const DEFAULT_BODY_CAP_BYTES = 64 * 1024;

/** Exchanges kept per tunnel (the ring's count bound, D3). */
export const DEFAULT_RING_MAX_EXCHANGES = 1000;

/** Bytes of captured bodies kept per tunnel (the ring's byte bound, D3): 16 MiB. */
export const DEFAULT_RING_MAX_BYTES = 16 * 1024 * 1024;

/** What an exchange costs the ring besides its bodies (ids, names, numbers). */
export const RECORD_OVERHEAD_BYTES = 256;

/** The placeholder of a redacted string value (numbers become 0, booleans false; keys and types stay). */
export const REDACTED = '[redacted]';

/** Server→client responses waiting for their call to finish, per tunnel, before the oldest is dropped. */
export const MAX_PENDING_CHILD_RESPONSES = 256;
