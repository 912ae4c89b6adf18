/**
 * The Streamable HTTP hosts behind the MCP routes, all stateless (G7): one for `/hub`, one for `/mcp`, and
 * one per upstream for `/servers/<name>/mcp`, created on first use and closed when the upstream is
 * removed. Each host builds a fresh MCP server per request. Upstream `list_changed` notifications are
 * relayed to 2026-07-28 `subscriptions/listen` streams of the upstream's own endpoint.
 *
 * @module
 */
import { createProxyServer, listenStreamSubscriptions } from '@mcppipe/aggregator';
import type { PolicyGate } from '@mcppipe/aggregator';
import type { Aggregator } from '@mcppipe/aggregator';
import { createMcpHttpHost } from '@mcppipe/http';
import type { McpHttpHost } from '@mcppipe/http';
import type { UpstreamNotificationEvent, UpstreamRegistry } from '@mcppipe/supervisor';
import type { Logger, McpEndpoint } from '../types.js';

/** Options of {@link EndpointHosts}. */
export interface EndpointHostsOptions {
  registry: UpstreamRegistry;
  hub?: McpEndpoint;
  /** The aggregate; with `subscribeResource`, 2026 listen streams hold upstream resource subscriptions. */
  aggregate?: McpEndpoint & Partial<Pick<Aggregator, 'subscribeResource'>>;
  bodyLimit: number;
  proxyTimeoutMs: number;
  logger: Logger;
  /** Tool policies and rate limits of the per-server paths (the gate `/mcp` and `/hub` use). */
  policy?: PolicyGate;
}

/** The hosts of every MCP endpoint. */
export class EndpointHosts {
  readonly hub: McpHttpHost | undefined;
  readonly aggregate: McpHttpHost | undefined;
  readonly #servers = new Map<string, McpHttpHost>();
  readonly #onNotification = (event: UpstreamNotificationEvent) => this.#relay(event);
  readonly #onLayout = (event: { removed: string[] }) => {
    for (const name of event.removed) this.drop(name);
  };

  constructor(private readonly options: EndpointHostsOptions) {
    const hostOptions = { stateless: true, maxRequestBodySize: options.bodyLimit, logger: options.logger };
    this.hub = options.hub && createMcpHttpHost(options.hub.createServer, hostOptions);
    this.aggregate =
      options.aggregate &&
      createMcpHttpHost(options.aggregate.createServer, {
        ...hostOptions,
        // 2026-07-28 listen streams that ask for resource updates hold the upstream subscription while open
        ...(options.aggregate.subscribeResource && {
          onResourceSubscriptions: listenStreamSubscriptions(
            options.aggregate as Pick<Aggregator, 'subscribeResource'>,
          ),
        }),
      });
    options.registry.on('notification', this.#onNotification);
    options.registry.on('layout_changed', this.#onLayout);
  }

  /**
   * The host of one upstream's endpoint (created on first use).
   *
   * @param name - the upstream
   */
  server(name: string): McpHttpHost {
    let host = this.#servers.get(name);
    if (host === undefined) {
      const { registry, proxyTimeoutMs: timeoutMs, bodyLimit, logger, policy } = this.options;
      const proxy = { registry, name, timeoutMs, ...(policy && { policy }) };
      host = createMcpHttpHost(() => createProxyServer(proxy), {
        stateless: true,
        maxRequestBodySize: bodyLimit,
        logger,
      });
      this.#servers.set(name, host);
    }
    return host;
  }

  /** Number of per-server hosts alive. */
  get serverHostCount(): number {
    return this.#servers.size;
  }

  /**
   * Closes and forgets the host of a removed upstream.
   *
   * @param name - the upstream
   */
  drop(name: string): void {
    const host = this.#servers.get(name);
    if (host === undefined) return;
    this.#servers.delete(name);
    void host.close().catch(() => {});
  }

  /** Detaches from the registry and closes every host. */
  async close(): Promise<void> {
    this.options.registry.off('notification', this.#onNotification);
    this.options.registry.off('layout_changed', this.#onLayout);
    const all = [...this.#servers.values(), this.hub, this.aggregate].filter((h) => h !== undefined);
    this.#servers.clear();
    await Promise.allSettled(all.map((h) => h.close()));
  }

  #relay(event: UpstreamNotificationEvent): void {
    const host = this.#servers.get(event.upstream);
    if (host === undefined) return;
    if (event.method === 'notifications/tools/list_changed') host.notify.toolsChanged();
    else if (event.method === 'notifications/prompts/list_changed') host.notify.promptsChanged();
    else if (event.method === 'notifications/resources/list_changed') host.notify.resourcesChanged();
    else if (event.method === 'notifications/resources/updated') {
      const uri = event.params?.['uri'];
      if (typeof uri === 'string') host.notify.resourceUpdated(uri);
    }
  }
}
