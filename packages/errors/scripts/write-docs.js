// Regenerates docs/errors.md from src/codes.ts (run after adding a code). Needs no build.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseErrorCodeDocs, renderErrorCodeDocs } from './errorDocs.js';

const source = readFileSync(new URL('../src/codes.ts', import.meta.url), 'utf8');
writeFileSync(
  new URL('../../../docs/errors.md', import.meta.url),
  renderErrorCodeDocs(parseErrorCodeDocs(source)),
);
