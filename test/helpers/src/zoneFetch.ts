import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';

/**
 * A `fetch` (for the SDK transports' `fetch` option) that resolves every name under `zone` to 127.0.0.1 and every
 * other name as usual: what wildcard DNS does for a tunnel relay, without touching the machine's resolver. The URL
 * keeps its host, so the request carries `Host: <sub>--<account>.<zone>:PORT` and the relay routes by it (T4).
 *
 * @param zone - the tunnel zone (`tunnel.test`)
 * @returns the fetch and `close()` for its connection pool
 */
export function zoneFetch(zone: string): { fetch: typeof fetch; close(): Promise<void> } {
  const suffix = `.${zone.toLowerCase()}`;
  const dispatcher = new Agent({
    connect: {
      lookup(
        hostname: string,
        options: LookupOptions,
        callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
      ) {
        if (!hostname.toLowerCase().endsWith(suffix)) {
          void import('node:dns').then((dns) => dns.lookup(hostname, options, callback));
          return;
        }
        if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
        else callback(null, '127.0.0.1', 4);
      },
    },
  });
  const zoned = ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
    undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch;
  return { fetch: zoned, close: () => dispatcher.close() };
}
