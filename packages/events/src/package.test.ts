import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('public surface', () => {
  it('exports exactly these runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "DEFAULT_DELIVERY_LOG_SIZE",
        "DEFAULT_REPLAY_BUFFER",
        "DEFAULT_SSE_PING_MS",
        "DEFAULT_WEBHOOK_ATTEMPTS",
        "DEFAULT_WEBHOOK_RETRY_DELAYS_MS",
        "DEFAULT_WEBHOOK_TIMEOUT_MS",
        "EVENT_TYPES",
        "EventHub",
        "JsonFileEventsStore",
        "MemoryEventsStore",
        "RELAY_REQUEST_HEADER",
        "SCOPE_METADATA_KEY",
        "SCOPE_PATH",
        "ToolPins",
        "TunnelScopes",
        "WebhookDeliverer",
        "callEventScope",
        "canonicalJson",
        "eventsAfter",
        "followEventScope",
        "formatSseEvent",
        "isPrivateAddress",
        "nodeTransport",
        "openEventStream",
        "openSseStream",
        "resolvePublic",
        "serveEventScope",
        "stateChangedData",
        "toolHash",
      ]
    `);
  });
});
