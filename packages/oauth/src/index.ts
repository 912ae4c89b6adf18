/**
 * `@mcppipe/oauth`: An OAuth 2.1 authorization server core: clients, password login, approvals, EdDSA JWTs, refresh-token families, state on disk. Every export here is public API.
 *
 * @module
 */
export {};
