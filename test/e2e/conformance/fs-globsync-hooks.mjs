// Module resolve hook registered by ./node20-shim.mjs (runs in Node's hooks thread).
// Redirects `fs` / `node:fs` imported by @modelcontextprotocol/conformance's dist bundle to ./fs-with-globsync.mjs.
// Every other importer, including that module itself, gets the real node:fs.
const replacement = new URL('./fs-with-globsync.mjs', import.meta.url).href;
const BUNDLE = /[\\/]node_modules[\\/]@modelcontextprotocol[\\/]conformance[\\/]dist[\\/]/;

export async function resolve(specifier, context, nextResolve) {
  if (
    (specifier === 'fs' || specifier === 'node:fs') &&
    context.parentURL &&
    BUNDLE.test(context.parentURL)
  ) {
    return { url: replacement, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
