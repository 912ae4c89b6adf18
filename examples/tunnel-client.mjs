// A remote-style agent for a tunnel's public URL (docs/tunnel.md "Try it on one machine"): the v2 SDK client with
// its own OAuth flow. It discovers the tunnel's protected-resource metadata from the 401, registers itself at the
// gateway, prints the authorization URL for you to open (log in as the tunnel's owner account and approve), takes
// the redirect on a loopback port, then lists the namespaced tools and calls the first `*__echo` one.
//
//   node examples/tunnel-client.mjs http://127.0.0.1:3000/t/<subdomain>--<account>/mcp
import { createServer } from 'node:http';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: node examples/tunnel-client.mjs <public /mcp URL of a tunnel>\n');
  process.exit(2);
}
const url = new URL(target);

// the redirect comes back to this loopback listener (RFC 8252): a port of its own, known before registering
const callback = createServer();
await new Promise((resolve) => callback.listen(0, '127.0.0.1', resolve));
const redirectUrl = `http://127.0.0.1:${callback.address().port}/callback`;
const code = new Promise((resolve) =>
  callback.on('request', (req, res) => {
    const params = new URL(req.url ?? '/', redirectUrl).searchParams;
    res.end(params.has('code') ? 'Approved: you can close this page.\n' : 'No code in the redirect.\n');
    if (params.has('code')) resolve(params);
  }),
);

// an in-memory OAuth client, as a desktop agent keeps one
const state = {};
const provider = {
  redirectUrl,
  clientMetadata: {
    client_name: 'mcppipe tunnel example',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  },
  clientInformation: () => state.client,
  saveClientInformation: (info) => void (state.client = info),
  tokens: () => state.tokens,
  saveTokens: (tokens) => void (state.tokens = tokens),
  codeVerifier: () => state.verifier,
  saveCodeVerifier: (verifier) => void (state.verifier = verifier),
  discoveryState: () => state.discovery,
  saveDiscoveryState: (discovery) => void (state.discovery = discovery),
  redirectToAuthorization: (authorizationUrl) =>
    process.stderr.write(
      `Open this URL, log in with the tunnel owner's password and approve:\n  ${authorizationUrl.href}\n`,
    ),
};

const connect = async () => {
  const client = new Client({ name: 'mcppipe-tunnel-example', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return client;
};

let client;
try {
  client = await connect();
} catch (err) {
  if (!(err instanceof UnauthorizedError)) throw err;
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await transport.finishAuth(await code);
  client = await connect();
}
callback.close();
const { tools } = await client.listTools();
process.stdout.write(`${tools.length} tools: ${tools.map((t) => t.name).join(', ')}\n`);
const echo = tools.find((t) => t.name.endsWith('__echo'));
if (echo) {
  const result = await client.callTool({
    name: echo.name,
    arguments: { message: 'hello through the tunnel' },
  });
  process.stdout.write(`${echo.name} → ${result.content?.find((c) => c.type === 'text')?.text ?? ''}\n`);
}
await client.close();
