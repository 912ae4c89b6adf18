import type { JSONRPCMessage, McpServerFactory, Transport } from '@modelcontextprotocol/server';

/** The JSON-RPC code of invalid params (the SDK's schema failures). */
const INVALID_PARAMS = -32602;

/** What the SDK writes when a request fails its schema: `Invalid <method> request: <zod issues as JSON>`. */
const SCHEMA_FAILURE = /^Invalid (\S+) request: (\[[\s\S]*\])$/;

/**
 * The message an agent sees for an error whose text is internal (C4, issue 14.2): a raw zod issue dump becomes a
 * stable sentence naming, at most, the path of the first offending field; a stack overflow becomes a stable
 * internal error. Any other message comes back unchanged (the same string).
 *
 * @param code - the JSON-RPC error code
 * @param message - the message as produced
 * @returns the message to send
 */
export function agentSafeMessage(code: number, message: string): string {
  if (code === INVALID_PARAMS) {
    const m = SCHEMA_FAILURE.exec(message);
    if (m) {
      let path = '';
      try {
        const issues = JSON.parse(m[2]!) as { path?: unknown[] }[];
        const first = issues[0]?.path;
        if (Array.isArray(first) && first.length > 0) path = first.map(String).join('.');
      } catch {
        // not JSON after all: the stable sentence without a path
      }
      return path
        ? `Invalid params for ${m[1]}: the field "${path}" is missing or has the wrong type`
        : `Invalid params for ${m[1]}: the request does not match its schema`;
    }
  }
  if (message.includes('Maximum call stack size exceeded'))
    return 'Internal error: the request could not be processed';
  return message;
}

/**
 * Wraps a server factory so that every error its servers send is passed through {@link agentSafeMessage}: the
 * transport's `send` is wrapped when the server connects, so every path of the host (2025 sessions, 2026-07-28
 * requests, the shared instance) is covered at the cost of one property check per message.
 *
 * @param factory - the host's factory
 * @returns a factory returning the same servers
 */
export function withAgentSafeErrors(factory: McpServerFactory): McpServerFactory {
  return async (ctx) => {
    const server = await factory(ctx);
    const connect = server.connect.bind(server) as (transport: Transport) => Promise<void>;
    (server as { connect: (transport: Transport) => Promise<void> }).connect = (transport) => {
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        if ('error' in message) {
          const { code, message: text } = message.error;
          const safe = agentSafeMessage(code, text);
          if (safe !== text)
            message = { ...message, error: { ...message.error, message: safe } } as JSONRPCMessage;
        }
        return send(message, options);
      };
      return connect(transport);
    };
    return server;
  };
}
