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
 * Redacts the values an agent's user supplied in one JSON-RPC message; everything else is kept as sent:
 * - a request's `params.arguments` (`tools/call`, `prompts/get`);
 * - a `sampling/createMessage` request's `params.messages` and `params.systemPrompt` (they carry the call's values
 *   to the client's model), and a sampling answer's `result.content` (`{ role, content, model }`);
 * - an elicitation answer's `result.content` (`{ action, content }`).
 *
 * @param message - a parsed JSON-RPC message (or a batch)
 * @returns a copy with those values redacted
 */
export function redactMessage(message: unknown): unknown {
  if (Array.isArray(message)) return message.map(redactMessage);
  if (!isObject(message)) return message;
  const { params, result } = message;
  if (isObject(params) && 'arguments' in params)
    return { ...message, params: { ...params, arguments: redactValue(params['arguments']) } };
  if (isObject(params) && message['method'] === 'sampling/createMessage') {
    const messages = params['messages'];
    const redacted: Record<string, unknown> = {
      ...params,
      // each message's role stays: the conversation's shape without its text
      messages: Array.isArray(messages)
        ? messages.map((m) => (isObject(m) ? { ...m, content: redactValue(m['content']) } : redactValue(m)))
        : redactValue(messages),
    };
    if ('systemPrompt' in params) redacted['systemPrompt'] = redactValue(params['systemPrompt']);
    return { ...message, params: redacted };
  }
  if (isObject(result) && 'content' in result && ('action' in result || 'role' in result))
    return { ...message, result: { ...result, content: redactValue(result['content']) } };
  return message;
}

/**
 * Puts the original values back into an edited copy of a redacted request (issue 19 replay): wherever the edited
 * `params.arguments` still holds, at the same path, the placeholder {@link redactValue} made of the original value
 * (`"[redacted]"` for a string, `0` for a number, `false` for a boolean), the original value is sent; every other
 * field is sent as edited. So an owner who fixes one field of a call recorded with values off replays the call's
 * real values, not the placeholders. (A placeholder typed on purpose where the original differs is read as "left as
 * shown": to send `0`, `false` or `"[redacted]"` literally, turn capture of values on and replay again.)
 *
 * @param edited - the owner's edited copy (a JSON-RPC request)
 * @param original - the request as the agent sent it, values included
 * @returns `edited`, with its placeholders under `params.arguments` replaced by the original values
 * @example
 * ```ts
 * restoreRedacted(
 *   { method: 'tools/call', params: { name: 'fs__read', arguments: { path: '[redacted]', depth: 3 } } },
 *   { method: 'tools/call', params: { name: 'fs__read', arguments: { path: '/etc/hosts', depth: 2 } } },
 * ); // arguments: { path: '/etc/hosts', depth: 3 }
 * ```
 */
export function restoreRedacted(edited: unknown, original: unknown): unknown {
  if (!isObject(edited) || !isObject(original)) return edited;
  const params = edited['params'];
  const before = original['params'];
  if (!isObject(params) || !isObject(before) || !('arguments' in params) || !('arguments' in before))
    return edited;
  return {
    ...edited,
    params: { ...params, arguments: restoreValue(params['arguments'], before['arguments']) },
  };
}

function restoreValue(edited: unknown, original: unknown): unknown {
  if (Array.isArray(edited))
    return Array.isArray(original) ? edited.map((v, i) => restoreValue(v, original[i])) : edited;
  if (isObject(edited)) {
    if (!isObject(original)) return edited;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(edited))
      out[k] = Object.hasOwn(original, k) ? restoreValue(v, original[k]) : v;
    return out;
  }
  const leaf = original !== null && typeof original !== 'object';
  return leaf && edited === redactValue(original) ? original : edited;
}
