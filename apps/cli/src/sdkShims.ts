/**
 * What the bundled CLI links for the MCP SDK's `@modelcontextprotocol/client/_shims` and `…/server/_shims` (the
 * esbuild plugin in tsup.config.ts resolves both here; cold start, issue 21). The same as the SDK's Node shims, except
 * that the default JSON Schema validator loads on its first use instead of at start: the SDK's Node shims import its
 * ajv provider (ajv, its 2019/2020 dialects and ajv-formats: ~290 kB, one copy in each of the client and the server
 * package), which runs at import, while `mcppipe up` validates a JSON Schema only when a client's tool call carries
 * an `outputSchema` or an elicitation answer is checked, if ever.
 *
 * Not part of the public API: only the bundle links it.
 *
 * @module
 */
import { createRequire } from 'node:module';
import nodeProcess from 'node:process';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';

// not named `require`: esbuild would inline what it loads, which is what must wait
const load = createRequire(import.meta.url);

/** The SDK's ajv validator class (its CommonJS build, loaded synchronously on the first schema). */
type AjvProvider = new (ajv?: unknown) => jsonSchemaValidator;

/** As the SDK's Node shims say: a `fetch` TypeError in Node is never a CORS error. */
export const CORS_IS_POSSIBLE = false;

/** `node:process`, as the server package's Node shims export it. */
export const process: NodeJS.Process = nodeProcess;

/**
 * The SDK's default validator (`AjvJsonSchemaValidator` of `@modelcontextprotocol/client/validators/ajv`, with the
 * same options and dialect dispatch), created when the first schema is to be validated.
 */
export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  #real: jsonSchemaValidator | undefined;
  readonly #ajv: unknown;

  /** @param ajv - a pre-configured ajv instance, passed on to the SDK's provider */
  constructor(ajv?: unknown) {
    this.#ajv = ajv;
  }

  /**
   * The SDK provider's validator for `schema` (loading the provider the first time).
   *
   * @throws Error as the SDK's provider does, for a schema that declares an unsupported dialect
   */
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    if (!this.#real) {
      const { AjvJsonSchemaValidator } = load('@modelcontextprotocol/client/validators/ajv') as {
        AjvJsonSchemaValidator: AjvProvider;
      };
      this.#real = new AjvJsonSchemaValidator(this.#ajv); // undefined: the SDK's own per-dialect engines
    }
    return this.#real.getValidator<T>(schema);
  }
}
