// node:fs plus a `globSync` export, for the conformance bundle on Node 20 (see ./node20-shim.mjs).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;

/** Stand-in for Node 22's fs.globSync: only `conformance tier-check` uses it, and that needs GitHub anyway. */
export function globSync() {
  throw new Error(
    'fs.globSync needs Node 22 or later; on Node 20 the conformance suite runs its server and client commands only (not tier-check)',
  );
}
