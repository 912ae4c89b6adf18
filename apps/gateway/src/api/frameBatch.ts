/**
 * A batch of SSE frames as bytes (the Live tab's fan-out, R10): each frame is encoded into the batch's buffer as it
 * arrives, so no string lives until the flush (what outlives the young generation costs GC time on every call), and
 * the flush hands one Buffer to every stream.
 *
 * @module
 */
import type { ExchangeSummary } from '@mcppipe/capture';

/** The SSE frame of one exchange (`event: exchange`, the summary as `data`). */
export const exchangeFrame = (s: ExchangeSummary): string =>
  `id: ${s.id}\nevent: exchange\ndata: ${JSON.stringify(s)}\n\n`;

/** Bytes of a batch buffer: a batch that outgrows it continues in a new one (joined when taken). */
export const FRAME_BATCH_BYTES = 64 * 1024;

/** Frames encoded as UTF-8 into reusable-size buffers until {@link FrameBatch.take}. */
export class FrameBatch {
  #full: Buffer[] = [];
  #buf = Buffer.allocUnsafe(FRAME_BATCH_BYTES);
  #used = 0;

  /** Bytes held. */
  get bytes(): number {
    let n = this.#used;
    for (const b of this.#full) n += b.length;
    return n;
  }

  /**
   * Appends one frame.
   *
   * @param text - the frame (any string: it is encoded as UTF-8)
   */
  add(text: string): void {
    const most = 3 * text.length; // UTF-8 bytes of one UTF-16 code unit: at most 3
    if (this.#used + most > this.#buf.length) {
      if (this.#used > 0) this.#full.push(this.#buf.subarray(0, this.#used));
      this.#buf = Buffer.allocUnsafe(Math.max(FRAME_BATCH_BYTES, most));
      this.#used = 0;
    }
    this.#used += this.#buf.write(text, this.#used);
  }

  /**
   * The frames added since the last take, as one Buffer, and an empty batch from then on. The Buffer is never
   * written again (a stream's pending write may still hold it).
   *
   * @returns the bytes (empty when nothing was added)
   */
  take(): Buffer {
    const last = this.#buf.subarray(0, this.#used);
    const out = this.#full.length === 0 ? last : Buffer.concat([...this.#full, last]);
    this.#full = [];
    this.#buf = this.#used === 0 ? this.#buf : Buffer.allocUnsafe(FRAME_BATCH_BYTES);
    this.#used = 0;
    return out;
  }
}
