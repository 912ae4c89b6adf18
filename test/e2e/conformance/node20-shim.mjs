// Node 20 shim for @modelcontextprotocol/conformance 0.1.14+ (used with `node --import ./node20-shim.mjs …`).
//
// The suite's single bundle (dist/index.js) does `import { globSync } from "fs"`. `fs.globSync` exists from Node 22
// on; on Node 20 that static import fails at link time ("The requested module 'fs' does not provide an export named
// 'globSync'") before any command runs. Only `conformance tier-check` calls it.
//
// On a Node without fs.globSync this registers a module resolve hook (./fs-globsync-hooks.mjs) that answers the
// bundle's `fs` / `node:fs` imports — and only the bundle's — with ./fs-with-globsync.mjs: every export of node:fs plus
// a globSync that throws. The server and client commands never call it. On Node 22+ this file does nothing.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') {
  register('./fs-globsync-hooks.mjs', import.meta.url);
}
