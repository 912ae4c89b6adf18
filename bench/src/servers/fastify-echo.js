#!/usr/bin/env node
// Baseline HTTP floors: a plain Fastify app with the same options mcppipe's Fastify app uses.
//   POST /echo  parses the JSON-RPC body and answers `Echo: <message>` as a tools/call result would (R2)
//   POST /401   answers 401 with a WWW-Authenticate header, like a bearer check that fails (R6)
//   POST /401close  the same with `Connection: close` (context for R6: the gateway closes after an unread body)
//
//   node bench/src/servers/fastify-echo.js [--port 0]   → prints `listening <port>` on stdout
import Fastify from 'fastify';

const portArg = process.argv.indexOf('--port');
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : 0;

const app = Fastify({ logger: false, keepAliveTimeout: 5_000 });
app.post('/echo', async (req) => {
  const { id, params } = req.body;
  return {
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text: `Echo: ${params?.arguments?.message}` }] },
  };
});
app.post('/401', async (_req, reply) =>
  reply
    .code(401)
    .header(
      'www-authenticate',
      'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
    )
    .send({ error: 'invalid_token' }),
);
// the same 401, closing the connection as the gateway does when it answers without reading the body
app.post('/401close', async (_req, reply) =>
  reply
    .code(401)
    .header('connection', 'close')
    .header(
      'www-authenticate',
      'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
    )
    .send({ error: 'invalid_token' }),
);
const address = await app.listen({ host: '127.0.0.1', port });
process.stdout.write(`listening ${new URL(address).port}\n`);
const stop = () => app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
