/**
 * `@mcppipe/e2e`: End-to-end tests: the CLI and the gateway against real upstream processes and real clients. Every export here is public API.
 *
 * @module
 */
export {};
