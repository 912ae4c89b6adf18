/**
 * `@mcppipe/namespace`: the namespacing codec. Upstream names (DESIGN.md A6), `<upstream>__<name>`
 * prefixing and splitting (A1), resource URI and template wrapping (A2), sanitizing detected client keys
 * (A11), fitting exposed tool and prompt names to what model APIs accept (A15). Pure and total: no I/O, no runtime dependency besides `@mcppipe/errors`.
 *
 * Every export here is public API.
 *
 * @module
 */
export { exposedNameLimits } from './defaults.js';
export { prefixName, splitName } from './exposedName.js';
export type { SplitName } from './exposedName.js';
export { fitName, fitNames } from './fitName.js';
export type { FitNameOptions } from './fitName.js';
export { unwrapResourceTemplate, wrapResourceTemplate } from './resourceTemplate.js';
export type { UnwrappedResourceTemplate } from './resourceTemplate.js';
export { unwrapResourceUri, wrapResourceUri } from './resourceUri.js';
export type { UnwrappedResourceUri } from './resourceUri.js';
export { sanitizeUpstreamName, sanitizeUpstreamNames } from './sanitize.js';
export type { SanitizedUpstreamNames, UpstreamRename } from './sanitize.js';
export { isValidUpstreamName, validateUpstreamName, validateUpstreamNames } from './upstreamName.js';
