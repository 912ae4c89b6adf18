// Types of errorDocs.js (the docs/errors.md renderer; repository-only, not part of the package).

/** One documented error code, parsed from the doc comments of `codes.ts`. */
export interface ErrorCodeDoc {
  code: string;
  pkg: string;
  description: string;
}

/** Parses the doc comments of the code list (the source text of `codes.ts`), in file order. */
export function parseErrorCodeDocs(source: string): ErrorCodeDoc[];

/** Renders `docs/errors.md` from the parsed code list. */
export function renderErrorCodeDocs(docs: readonly ErrorCodeDoc[]): string;
