#!/usr/bin/env node
// Baseline "one MCP hop" floor (R1): the official SDK's own Streamable HTTP server answering `echo` in process,
// no upstream, on bare node:http. Two paths, one per protocol era, each the SDK's idiomatic wiring:
//   /session  2025 era with sessions: one McpServer + NodeStreamableHTTPServerTransport per session
//   /modern   createMcpHandler (2026-07-28 per request; 2025 requests without a session served statelessly)
// The echo tool is registered like server-everything's: a zod input schema, `Echo: <message>` as text.
//
//   node bench/src/servers/sdk-echo.js [--port 0]   → prints `listening <port>` on stdout
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';

const portArg = process.argv.indexOf('--port');
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : 0;

function echoServer() {
  const server = new McpServer({ name: 'sdk-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes back the input string', inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
  );
  return server;
}

const modern = toNodeHandler(createMcpHandler(echoServer, { legacy: 'stateless' }));
const sessions = new Map();

async function sessionRequest(req, res) {
  const sid = req.headers['mcp-session-id'];
  if (typeof sid === 'string') {
    const transport = sessions.get(sid);
    if (!transport) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      return;
    }
    await transport.handleRequest(req, res);
    return;
  }
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await echoServer().connect(transport);
  await transport.handleRequest(req, res);
}

const server = http.createServer((req, res) => {
  const path = req.url?.split('?')[0];
  const done = (err) => {
    if (err && !res.headersSent) res.writeHead(500).end(String(err));
  };
  if (path === '/session') sessionRequest(req, res).catch(done);
  else if (path === '/modern') Promise.resolve(modern(req, res)).catch(done);
  else res.writeHead(404).end();
});
server.keepAliveTimeout = 5_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
