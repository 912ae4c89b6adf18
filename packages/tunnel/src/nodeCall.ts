import type http2 from 'node:http2';
import { tunnelOffline } from './errors.js';

/** Names a node-to-node call (S2): a request between nodes that is not tunnel traffic. */
export const NODE_CALL_HEADER = 'x-mcppipe-node-call';
/** Largest payload or answer of a node call, bytes. */
export const MAX_NODE_CALL_BYTES = 1 << 20;
/** A node call not answered within this long fails, ms (a replay reads its answer for up to 60 s). */
export const NODE_CALL_TIMEOUT_MS = 70_000;

/** The answer of a node call: an HTTP status and a JSON body. */
export interface NodeCallAnswer {
  status: number;
  body: unknown;
}

/**
 * Serves one named call on the node holding a tunnel (e.g. the dashboard's replay of one of its exchanges).
 *
 * @param payload - the caller's JSON payload
 * @returns the answer, relayed as is by the calling node (401 is the node link's own refusal of a secret: a
 *   handler does not answer it)
 */
export type NodeCallHandler = (payload: unknown) => Promise<NodeCallAnswer>;

const json = (status: number, body: unknown) => ({ status, text: JSON.stringify(body) });

async function readAll(stream: AsyncIterable<unknown>): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    if ((bytes += b.length) > MAX_NODE_CALL_BYTES) return undefined;
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * @internal Answers a node call on the listener (the secret was checked): the JSON payload goes to the handler
 * registered for the call's name; unknown names get 404, a handler that throws 500 (its message is not sent).
 */
export async function acceptNodeCall(
  handlers: ReadonlyMap<string, NodeCallHandler>,
  req: http2.Http2ServerRequest,
  res: http2.Http2ServerResponse,
): Promise<void> {
  const name = String(req.headers[NODE_CALL_HEADER]);
  let out: { status: number; text: string };
  const handler = handlers.get(name);
  try {
    const text = await readAll(req);
    if (handler === undefined) out = json(404, { error: 'not_found', message: `no node call ${name}` });
    else if (text === undefined) out = json(413, { error: 'too_large', message: 'node call too large' });
    else {
      const answer = await handler(text === '' ? undefined : (JSON.parse(text) as unknown));
      out = json(answer.status, answer.body);
    }
  } catch {
    out = json(500, { error: 'internal', message: 'the node call failed' });
  }
  if (res.headersSent || res.destroyed) return;
  if (out.status === 204 || out.status === 304) return void res.writeHead(out.status).end(); // no body allowed
  res.writeHead(out.status, { 'content-type': 'application/json' });
  res.end(out.text);
}

/**
 * @internal Sends a node call on an open session to the owner node and reads its JSON answer.
 *
 * @throws McpPipeError `MCPP_TUNNEL_OFFLINE` when the stream fails, times out, the peer refuses the node secret
 *   (401) or the answer is not JSON
 */
export async function sendNodeCall(
  session: http2.ClientHttp2Session,
  call: { headers: http2.OutgoingHttpHeaders; payload: unknown; subdomain: string },
): Promise<NodeCallAnswer> {
  const { headers, payload, subdomain } = call;
  const stream = session.request({
    ...headers,
    ':method': 'POST',
    ':path': '/',
    'content-type': 'application/json',
  });
  stream.setTimeout(NODE_CALL_TIMEOUT_MS, () => stream.close());
  try {
    const status = new Promise<number>((resolve, reject) => {
      stream.once('response', (h) => resolve(Number(h[':status'])));
      stream.once('error', reject);
      stream.once('close', () => reject(new Error('node call closed before its answer')));
    });
    stream.end(JSON.stringify(payload ?? null));
    const code = await status;
    // the peer refused this node's secret (a misconfiguration it logs): not an answer to relay to the caller
    if (code === 401) throw new Error('the peer node refused the node secret');
    const text = await readAll(stream);
    if (text === undefined) throw new Error('node call answer too large');
    return { status: code, body: text === '' ? null : (JSON.parse(text) as unknown) };
  } catch (err) {
    stream.destroy();
    throw Object.assign(tunnelOffline(subdomain), { cause: err });
  }
}
