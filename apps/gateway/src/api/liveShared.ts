/**
 * The Live tab's read of a shared ring (many nodes, issue 20): for a tunnel another node holds, the exchanges reach
 * this node only through the ring the holding node writes to the store. `LiveFanout` polls it with
 * {@link newerShared}; a burst larger than {@link LIVE_POLL_LIMIT} between two polls shows only its newest entries.
 *
 * @module
 */
import type { ExchangeCapture, ExchangeSummary } from '@mcppipe/capture';

/** How often a feed of a tunnel held by another node reads the shared ring, ms. */
export const LIVE_POLL_MS = 500;
/** Entries read per poll; when none of them was seen before, {@link LIVE_POLL_LIMIT} are read. */
export const LIVE_POLL_FIRST = 10;
/** Most entries read per poll: of a larger burst between two polls only the newest are streamed on such a node. */
export const LIVE_POLL_LIMIT = 50;

/**
 * The ring's entries appended after `last`, newest first: the newest {@link LIVE_POLL_FIRST}, or up to
 * {@link LIVE_POLL_LIMIT} when `last` is not among them (a burst; all of them when it is not there either).
 *
 * @param capture - the capture whose shared ring is read (`listShared`)
 * @param tunnel - the tunnel id
 * @param last - the newest id of the previous read (null: the ring was empty; undefined: no read yet, so the
 *   newest {@link LIVE_POLL_FIRST} are returned)
 * @returns the new entries, newest first
 * @throws the store's error when the ring cannot be read (the caller reads again at its next poll)
 */
export async function newerShared(
  capture: Pick<ExchangeCapture, 'listShared'>,
  tunnel: string,
  last: string | null | undefined,
): Promise<ExchangeSummary[]> {
  let newest = await capture.listShared(tunnel, { limit: LIVE_POLL_FIRST });
  let at = newest.findIndex((s) => s.id === last);
  if (at < 0 && newest.length === LIVE_POLL_FIRST && last !== undefined) {
    newest = await capture.listShared(tunnel, { limit: LIVE_POLL_LIMIT });
    at = newest.findIndex((s) => s.id === last);
  }
  return at < 0 ? newest : newest.slice(0, at);
}
