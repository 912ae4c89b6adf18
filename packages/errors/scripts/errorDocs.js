// The docs/errors.md renderer: used by `write-docs.js` and by the drift test in src/codes.test.ts. Not part of the
// package (not in `files`, not exported): the page is a repository artefact, not an API.

/**
 * Parses the doc comments of the code list (the source text of `codes.ts`).
 *
 * @param {string} source - the text of `src/codes.ts`
 * @returns {import('./errorDocs.js').ErrorCodeDoc[]} each code with its package and doc comment, in file order
 */
export function parseErrorCodeDocs(source) {
  const docs = [];
  const re = /\/\*\*((?:(?!\*\/)[\s\S])*?)\*\/\s*\n\s*(MCPP_[A-Z0-9_]+):\s*'([^']+)'/g;
  for (const m of source.matchAll(re)) {
    const description = (m[1] ?? '')
      .split('\n')
      .map((line) => line.replace(/^\s*\*\s?/, '').trim())
      .filter(Boolean)
      .join(' ');
    docs.push({ code: m[2] ?? '', pkg: m[3] ?? '', description });
  }
  return docs;
}

/**
 * Renders `docs/errors.md` from the parsed code list.
 *
 * @param {readonly import('./errorDocs.js').ErrorCodeDoc[]} docs - the output of {@link parseErrorCodeDocs}
 * @returns {string} the Markdown text of the page
 */
export function renderErrorCodeDocs(docs) {
  const lines = [
    '# Error codes',
    '',
    '<!-- Generated from packages/errors/src/codes.ts by `pnpm --filter @mcppipe/errors docs`; a test fails on drift. -->',
    '',
    'Every error mcppipe throws on purpose is a `McpPipeError` with one of these stable codes. Codes are never reused.',
    'Errors that cross the wire are JSON-RPC errors instead (see the aggregator README).',
    '',
    '| code | package | meaning |',
    '| --- | --- | --- |',
  ];
  for (const d of docs)
    lines.push(`| \`${d.code}\` | \`${d.pkg}\` | ${d.description.replace(/\|/g, '\\|')} |`);
  return `${lines.join('\n')}\n`;
}
