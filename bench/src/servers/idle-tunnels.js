#!/usr/bin/env node
// R8's tunnel client side, in its own process so that the relay's RSS is measured alone: opens N tunnels to one
// relay with `connectTunnel` (subdomains idle0001…idleNNNN, one API key), every one served by the same
// `forwardToLoopback` handler pointed at a running `mcppipe up`, then keeps them open, idle, until SIGTERM.
//
//   node bench/src/servers/idle-tunnels.js --relay URL --count N --port MCPPIPE_PORT [--auth api-key|none]
//     (the API key comes from the environment, MCPPIPE_API_KEY, never from argv)
//   → prints `tunnels connected <N> in <ms> ms` on stdout once all N are connected
//
// Bounded: at most 50 connects in flight, and the whole open phase gives up after 120 s (exit 1).
import { performance } from 'node:perf_hooks';
import { connectTunnel, forwardToLoopback } from '@mcppipe/tunnel';

const argv = process.argv.slice(2);
const value = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
};
const relayUrl = value('relay');
const count = Number(value('count', '1000'));
const port = Number(value('port'));
const auth = value('auth', 'api-key');
const apiKey = process.env.MCPPIPE_API_KEY ?? '';
const IN_FLIGHT = 50;
const OPEN_BUDGET_MS = 120_000;

/** `idle0001`: the subdomain of tunnel #n (1-based), in the order they are opened (tunnel.js reads the same). */
const subdomainOf = (n) => `idle${String(n).padStart(4, '0')}`;

const handler = forwardToLoopback({ port, maxSockets: 32 });
const clients = [];
const giveUp = setTimeout(() => {
  process.stderr.write(`idle-tunnels: not all ${count} tunnels connected within ${OPEN_BUDGET_MS} ms\n`);
  process.exit(1);
}, OPEN_BUDGET_MS);

const t0 = performance.now();
let next = 1;
const opener = async () => {
  while (next <= count) {
    const n = next++;
    const client = connectTunnel({
      relayUrl,
      apiKey,
      subdomain: subdomainOf(n),
      handler,
      metadata: { auth },
    });
    clients.push(client);
    await client.connected();
  }
};
try {
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count) }, opener));
} catch (err) {
  process.stderr.write(`idle-tunnels: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
clearTimeout(giveUp);
process.stdout.write(`tunnels connected ${clients.length} in ${(performance.now() - t0).toFixed(0)} ms\n`);

const stop = async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  handler.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
setInterval(() => {}, 60_000); // stay alive, idle
