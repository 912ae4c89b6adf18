import { createServer } from 'node:net';

/**
 * Finds a free TCP port on 127.0.0.1 (bind to port 0, read it, close).
 *
 * @returns a port number that was free a moment ago
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Whether this machine has an IPv6 loopback: `::1` can be bound (containers and CI runners may have IPv6 off).
 * Tests of `[::1]` skip without it.
 *
 * @returns true when a listener on `::1` could be opened (it is closed again)
 */
export async function hasIpv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(0, '::1', () => srv.close(() => resolve(true)));
  });
}
