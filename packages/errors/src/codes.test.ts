import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCodes } from './codes.js';
import { parseErrorCodeDocs, renderErrorCodeDocs } from '../scripts/errorDocs.js';

const source = readFileSync(new URL('./codes.ts', import.meta.url), 'utf8');

describe('error codes', () => {
  it('every code has a doc comment and the MCPP_<AREA>_<WHAT> shape', () => {
    const documented = parseErrorCodeDocs(source).map((d) => d.code);
    expect(documented).toEqual(Object.keys(errorCodes));
    for (const code of documented) expect(code).toMatch(/^MCPP_[A-Z]+_[A-Z0-9_]+$/);
  });

  it('docs/errors.md matches the code list (run `pnpm --filter @mcppipe/errors docs` after a change)', () => {
    const page = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    expect(page).toBe(renderErrorCodeDocs(parseErrorCodeDocs(source)));
  });
});
