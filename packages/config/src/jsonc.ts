/**
 * A small JSON parser that also accepts comments and trailing commas (JSONC, as VS Code, Cursor and
 * Claude Code write their files) and reports syntax errors with line and column, without echoing the
 * document (it may hold secrets). Objects are plain; a `__proto__` key is an ordinary property.
 */
import { MAX_JSON_DEPTH } from './defaults.js';
import { syntaxError } from './errors.js';
import type { PathSegment } from './issues.js';
import { stripBom } from './readFile.js';

/** A key that appears twice in one object (JSON keeps only the last, silently). */
export interface DuplicateKey {
  /** The path of the key, e.g. `["mcpServers", "memory"]`. */
  path: PathSegment[];
  /** Line (1-based) of the first occurrence. */
  firstLine: number;
  /** Line (1-based) of the later occurrence. */
  line: number;
}

/** A run of string characters that need no attention (sticky: matched at `lastIndex`); `\p{Cc}` keeps the linter happy. */
const PLAIN = /[^"\\\p{Cc}]+/uy;

class Fail {
  constructor(
    readonly offset: number,
    readonly detail: string,
  ) {}
}

function describeChar(ch: string | undefined): string {
  if (ch === undefined) return 'end of file';
  if (ch === '\n' || ch === '\r') return 'end of line';
  return JSON.stringify(ch);
}

class Parser {
  pos = 0;
  /** The path of the value being parsed (kept only when duplicates are collected). */
  readonly segs: PathSegment[] = [];
  /** Offsets of duplicate keys: path, first offset, later offset. */
  readonly dups: { path: PathSegment[]; first: number; second: number }[] = [];
  constructor(
    readonly text: string,
    readonly trackDuplicates = false,
  ) {}

  fail(detail: string, offset = this.pos): never {
    throw new Fail(offset, detail);
  }

  skip(): void {
    const t = this.text;
    for (;;) {
      const ch = t[this.pos];
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') this.pos++;
      else if (ch === '/' && t[this.pos + 1] === '/') {
        while (this.pos < t.length && t[this.pos] !== '\n') this.pos++;
      } else if (ch === '/' && t[this.pos + 1] === '*') {
        const end = t.indexOf('*/', this.pos + 2);
        if (end < 0) this.fail('unterminated comment');
        this.pos = end + 2;
      } else return;
    }
  }

  value(depth: number): unknown {
    if (depth > MAX_JSON_DEPTH) this.fail(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    this.skip();
    const ch = this.text[this.pos];
    if (ch === '{') return this.object(depth);
    if (ch === '[') return this.array(depth);
    if (ch === '"') return this.string();
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return this.number();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    return this.fail(`expected a value, found ${describeChar(ch)}`);
  }

  object(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++;
    this.skip();
    if (this.text[this.pos] === '}') return (this.pos++, out);
    const seen = this.trackDuplicates ? new Map<string, number>() : undefined;
    for (;;) {
      this.skip();
      if (this.text[this.pos] !== '"')
        this.fail(`expected a property name in double quotes, found ${describeChar(this.text[this.pos])}`);
      const keyAt = this.pos;
      const key = this.string();
      this.skip();
      if (this.text[this.pos] !== ':')
        this.fail(`expected ":" after a property name, found ${describeChar(this.text[this.pos])}`);
      this.pos++;
      if (seen !== undefined) {
        const first = seen.get(key);
        if (first === undefined) seen.set(key, keyAt);
        else this.dups.push({ path: [...this.segs, key], first, second: keyAt });
        this.segs.push(key);
      }
      Object.defineProperty(out, key, {
        value: this.value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      if (seen !== undefined) this.segs.pop();
      this.skip();
      const ch = this.text[this.pos];
      if (ch === '}') return (this.pos++, out);
      if (ch !== ',') this.fail(`expected "," or "}" after a property value, found ${describeChar(ch)}`);
      this.pos++;
      this.skip();
      if (this.text[this.pos] === '}') return (this.pos++, out);
    }
  }

  array(depth: number): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    this.skip();
    if (this.text[this.pos] === ']') return (this.pos++, out);
    for (;;) {
      if (this.trackDuplicates) this.segs.push(out.length);
      out.push(this.value(depth + 1));
      if (this.trackDuplicates) this.segs.pop();
      this.skip();
      const ch = this.text[this.pos];
      if (ch === ']') return (this.pos++, out);
      if (ch !== ',') this.fail(`expected "," or "]" after an array element, found ${describeChar(ch)}`);
      this.pos++;
      this.skip();
      if (this.text[this.pos] === ']') return (this.pos++, out);
    }
  }

  string(): string {
    const start = this.pos;
    this.pos++;
    let out = '';
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined || ch === '\n' || ch === '\r') this.fail('unterminated string', start);
      if (ch === '"') {
        this.pos++;
        return out;
      }
      if (ch < ' ') this.fail('control character in a string; escape it');
      if (ch !== '\\') {
        PLAIN.lastIndex = this.pos;
        const end = PLAIN.test(this.text) ? PLAIN.lastIndex : this.pos + 1; // U+007F–U+009F: one at a time
        out += this.text.slice(this.pos, end);
        this.pos = end;
        continue;
      }
      const esc = this.text[this.pos + 1];
      const simple: Record<string, string> = {
        '"': '"',
        '\\': '\\',
        '/': '/',
        b: '\b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t',
      };
      if (esc !== undefined && Object.hasOwn(simple, esc)) {
        out += simple[esc];
        this.pos += 2;
      } else if (esc === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) {
        out += String.fromCharCode(parseInt(this.text.slice(this.pos + 2, this.pos + 6), 16));
        this.pos += 6;
      } else this.fail(`invalid escape "\\${esc ?? ''}" in a string`);
    }
  }

  number(): number {
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos));
    if (m === null) this.fail('invalid number');
    this.pos += m[0].length;
    return Number(m[0]);
  }
}

/** Line and column (1-based) of `offset` in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/**
 * Parses JSON with comments and trailing commas.
 *
 * @param text - the document
 * @param path - the file name used in messages
 * @returns the parsed value
 * @throws McpPipeError `MCPP_CFG_SYNTAX`: `file:line:column: invalid JSON: …`, with `data: { path, line, column }`
 */
export function parseJsonc(text: string, path: string): unknown {
  return parseJsoncTracked(text, path, false).value;
}

/**
 * Parses JSON with comments and trailing commas and reports every key that appears twice in one object
 * (`JSON.parse` keeps the last silently; DESIGN.md G1 wants that loud).
 *
 * @param text - the document
 * @param path - the file name used in messages
 * @returns the parsed value (last occurrence wins, as in JSON) and the duplicate keys in document order
 * @throws McpPipeError `MCPP_CFG_SYNTAX`, as {@link parseJsonc}
 */
export function parseJsoncWithDuplicates(
  text: string,
  path: string,
): { value: unknown; duplicates: DuplicateKey[] } {
  return parseJsoncTracked(text, path, true);
}

function parseJsoncTracked(
  text: string,
  path: string,
  trackDuplicates: boolean,
): { value: unknown; duplicates: DuplicateKey[] } {
  const source = stripBom(text);
  const parser = new Parser(source, trackDuplicates);
  try {
    const value = parser.value(0);
    parser.skip();
    if (parser.pos < source.length)
      parser.fail(`unexpected ${describeChar(source[parser.pos])} after the document`);
    const duplicates = parser.dups.map((d) => ({
      path: d.path,
      firstLine: lineAndColumn(source, d.first).line,
      line: lineAndColumn(source, d.second).line,
    }));
    return { value, duplicates };
  } catch (err) {
    if (!(err instanceof Fail)) throw err;
    throw syntaxError('JSON', { path, ...lineAndColumn(source, err.offset) }, err.detail);
  }
}
