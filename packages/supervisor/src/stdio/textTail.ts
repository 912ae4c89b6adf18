import { StringDecoder } from 'node:string_decoder';

/**
 * The last `maxBytes` (approximately, in UTF-16 code units) of a text stream, e.g. a child's stderr. Appending is
 * O(chunk) and memory stays bounded however much is written.
 */
export class TextTail {
  readonly #max: number;
  readonly #decoder = new StringDecoder('utf8');
  #text = '';

  /** @param maxBytes - how much text to keep */
  constructor(maxBytes: number) {
    this.#max = Math.max(64, maxBytes);
  }

  /** Appends a chunk (a Buffer is decoded as UTF-8, split characters are kept for the next chunk). */
  append(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    if (text.length >= this.#max) {
      this.#text = text.slice(text.length - this.#max);
    } else {
      this.#text += text;
      if (this.#text.length > 2 * this.#max) this.#text = this.#text.slice(this.#text.length - this.#max);
    }
  }

  /**
   * The last complete-or-partial lines, oldest first, each cut to 500 characters.
   *
   * @param count - how many lines at most
   */
  lines(count: number): string[] {
    const text = this.#text.length > this.#max ? this.#text.slice(this.#text.length - this.#max) : this.#text;
    const lines = text.split('\n');
    if (text.length >= this.#max) lines.shift(); // the first line is cut
    return lines
      .map((l) => l.replace(/\r$/, ''))
      .filter((l) => l.trim() !== '')
      .slice(-count)
      .map((l) => (l.length > 500 ? `${l.slice(0, 500)}…` : l));
  }
}
