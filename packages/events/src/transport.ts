import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { checkedLookup, resolvePublic, type Resolver } from './address.js';

/** One delivery attempt as sent. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Abort the attempt after this many ms (connect to response headers). */
  timeoutMs: number;
}

/** The answer to one attempt. */
export interface WebhookResponse {
  status: number;
}

/** Sends one attempt; rejects on a network error, a refused target or a timeout. */
export type WebhookTransport = (request: WebhookRequest) => Promise<WebhookResponse>;

/**
 * The default transport: one POST with `node:http`/`node:https`, redirects not followed (a 3xx is an answer),
 * the target's addresses checked when the connection is made (E3), the attempt aborted after `timeoutMs`.
 *
 * @param resolver - the DNS resolver used for the connection
 * @param allowPrivate - connect to loopback/private/link-local addresses too
 * @returns the transport
 */
export function nodeTransport(resolver: Resolver, allowPrivate: boolean): WebhookTransport {
  const lookup = checkedLookup(resolver, allowPrivate);
  return async ({ url, headers, body, timeoutMs }) => {
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // an IP literal never reaches `lookup`: judge it here
    if (!allowPrivate && isIP(host)) await resolvePublic(host, resolver);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<WebhookResponse>((resolve, reject) => {
      const req = send(target, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup,
        signal: AbortSignal.timeout(timeoutMs),
        agent: false,
      });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0 });
      });
      req.on('error', (err) =>
        reject(err.name === 'AbortError' ? new Error(`no answer within ${timeoutMs} ms`) : err),
      );
      req.end(body);
    });
  };
}
