import { REDACTED } from './defaults.js';

/**
 * Replaces every value in a JSON value by a placeholder of the same type: strings become `"[redacted]"`, numbers
 * `0`, booleans `false`; `null`, object keys and array lengths stay, so the shape of the arguments is visible
 * without their values (issue 19: "argument values redacted unless the owner turned capture of values on").
 *
 * @param value - any JSON value
 * @returns a redacted copy
 * @example
 * ```ts
 * redactValue({ path: '/etc/passwd', depth: 2, tags: ['a'] }); // { path: '[redacted]', depth: 0, tags: ['[redacted]'] }
 * ```
 */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return REDACTED;
  if (typeof value === 'number') return 0;
  if (typeof value === 'boolean') return false;
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v);
    return out;
  }
  return value ?? null;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Redacts the argument values of one JSON-RPC message (a request's `params.arguments`, as in `tools/call` and
 * `prompts/get`; an elicitation answer's `result.content`); everything else is kept as sent.
 *
 * @param message - a parsed JSON-RPC message (or a batch)
 * @returns a copy with the argument values redacted
 */
export function redactMessage(message: unknown): unknown {
  if (Array.isArray(message)) return message.map(redactMessage);
  if (!isObject(message)) return message;
  const { params, result } = message;
  if (isObject(params) && 'arguments' in params)
    return { ...message, params: { ...params, arguments: redactValue(params['arguments']) } };
  if (isObject(result) && 'content' in result && result['action'] !== undefined)
    return { ...message, result: { ...result, content: redactValue(result['content']) } };
  return message;
}
