import { StringDecoder } from 'node:string_decoder';

/** How much of the start of the stream is kept for {@link TextTail.excerpt}, in UTF-16 code units. */
const HEAD_CHARS = 4096;
/** Longest line of an excerpt; longer lines end in `…`. */
const EXCERPT_LINE_CHARS = 300;
/** The marker between excerpt lines that are not adjacent in the stream. */
const ELISION = '…';
/**
 * A line that reads like the reason a process failed: what a server prints before its usage text or stack trace
 * (`Error: …`, `fatal: …`, `No access token was provided.`, `permission denied`, …).
 */
const ERROR_LIKE =
  /\b(?:error|fatal|fail(?:s|ed|ure)?|exception|panic|denied|refused|invalid|missing|unauthori[sz]ed|forbidden|cannot|can't|could not|unable|not (?:found|set|provided|allowed|defined)|no [\w -]{0,40}(?:provided|found|set|given|specified))\b/i;

/** What {@link TextTail.excerpt} keeps. */
export interface ExcerptOptions {
  /** The first non-empty lines of the stream. */
  head: number;
  /** Further lines of the start of the stream that read like an error (beyond `head`). */
  errors: number;
  /** The last non-empty lines. */
  tail: number;
}

interface Line {
  /** Index of the line among the non-empty lines of its source text. */
  at: number;
  text: string;
}

function nonEmpty(lines: readonly string[]): Line[] {
  const out: Line[] = [];
  for (const raw of lines) {
    const text = raw.replace(/\r$/, '');
    if (text.trim() !== '') out.push({ at: out.length, text });
  }
  return out;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The first `head` lines and the first `errors` error-like lines after them, in stream order. */
function pickHead(lines: readonly Line[], options: ExcerptOptions): Line[] {
  const picked = lines.slice(0, options.head);
  let errors = 0;
  for (const line of lines.slice(options.head)) {
    if (errors >= options.errors) break;
    if (ERROR_LIKE.test(line.text)) {
      picked.push(line);
      errors += 1;
    }
  }
  return picked;
}

/**
 * The last `maxBytes` (approximately, in UTF-16 code units) of a text stream, e.g. a child's stderr, and its first
 * few KiB: a server often prints its real error first and a long usage text or stack trace after it. Appending is
 * O(chunk) and memory stays bounded however much is written.
 */
export class TextTail {
  readonly #max: number;
  readonly #decoder = new StringDecoder('utf8');
  #text = '';
  #head = '';
  #total = 0;

  /** @param maxBytes - how much text to keep */
  constructor(maxBytes: number) {
    this.#max = Math.max(64, maxBytes);
  }

  /** Appends a chunk (a Buffer is decoded as UTF-8, split characters are kept for the next chunk). */
  append(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    if (this.#head.length < HEAD_CHARS) this.#head += text.slice(0, HEAD_CHARS - this.#head.length);
    this.#total += text.length;
    if (text.length >= this.#max) {
      this.#text = text.slice(text.length - this.#max);
    } else {
      this.#text += text;
      if (this.#text.length > 2 * this.#max) this.#text = this.#text.slice(this.#text.length - this.#max);
    }
  }

  #kept(): string {
    return this.#text.length > this.#max ? this.#text.slice(this.#text.length - this.#max) : this.#text;
  }

  /**
   * The last complete-or-partial lines, oldest first, each cut to 500 characters.
   *
   * @param count - how many lines at most
   */
  lines(count: number): string[] {
    const text = this.#kept();
    const lines = text.split('\n');
    if (text.length >= this.#max) lines.shift(); // the first line is cut
    return lines
      .map((l) => l.replace(/\r$/, ''))
      .filter((l) => l.trim() !== '')
      .slice(-count)
      .map((l) => (l.length > 500 ? `${l.slice(0, 500)}…` : l));
  }

  /**
   * The lines that explain a failure: the first `head` non-empty lines, the first `errors` lines after them that
   * read like an error (within the first 4 KiB of the stream), and the last `tail` lines, oldest first, with
   * {@link ELISION} (`…`) wherever lines were left out. Every line is cut to 300 characters, so the excerpt stays
   * within `(head + errors + tail) × 301` characters plus the markers. A short stream comes back whole.
   *
   * @param options - how many lines of each kind
   * @returns the lines, with `…` between lines that are not adjacent in the stream
   */
  excerpt(options: ExcerptOptions): string[] {
    const kept = this.#kept();
    const keptStart = this.#total - kept.length;
    let head: Line[];
    let tail: Line[];
    let gapAfterHead: boolean;
    if (keptStart <= this.#head.length) {
      // the head and the kept tail overlap: the whole stream is known
      const all = nonEmpty(`${this.#head.slice(0, keptStart)}${kept}`.split('\n'));
      tail = all.slice(Math.max(0, all.length - options.tail));
      head = pickHead(all.slice(0, all.length - tail.length), options);
      gapAfterHead = (head.at(-1)?.at ?? -1) + 1 < (tail[0]?.at ?? all.length);
    } else {
      const headLines = this.#head.split('\n');
      if (this.#head.length >= HEAD_CHARS) headLines.pop(); // the last line is cut
      head = pickHead(nonEmpty(headLines), options);
      const tailLines = kept.split('\n');
      tailLines.shift(); // the first line is cut
      tail = nonEmpty(tailLines).slice(-options.tail);
      gapAfterHead = true;
    }
    const out: string[] = [];
    head.forEach((line, i) => {
      if (i > 0 && line.at !== (head[i - 1]?.at ?? 0) + 1) out.push(ELISION);
      out.push(cut(line.text, EXCERPT_LINE_CHARS));
    });
    if (head.length > 0 && tail.length > 0 && gapAfterHead) out.push(ELISION);
    for (const line of tail) out.push(cut(line.text, EXCERPT_LINE_CHARS));
    return out;
  }
}
