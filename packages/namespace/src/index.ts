/**
 * `@mcppipe/namespace`: The namespacing codec: upstream names, <upstream>__<name> prefixing, resource URI and template wrapping. Every export here is public API.
 *
 * @module
 */
export {};
