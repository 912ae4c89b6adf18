import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VirtualClock } from '@mcppipe/upstream-state';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHub } from './hub.js';
import type { WebhookRequest } from './transport.js';
import type { McpPipeEvent } from './types.js';
import { WebhookDeliverer } from './webhooks.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

/** A real webhook receiver on loopback that answers `statuses[i]` to the i-th request (then 204). */
async function receiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(statuses[received.length - 1] ?? 204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

const stateChange = (hub: EventHub, to: 'available' | 'recovering') =>
  hub.publish('upstream.state_changed', {
    tunnel: null,
    upstream: 'files',
    from: to === 'available' ? 'recovering' : 'available',
    to,
    at: 1,
    error: null,
    downtimeMs: null,
  });

describe('WebhookDeliverer', () => {
  it('delivers signed events that the Standard Webhooks reference verify accepts', async () => {
    const rx = await receiver();
    const hub = new EventHub();
    const wh = await WebhookDeliverer.open({ allowPrivate: true });
    cleanup.push(() => wh.close());
    const { subscription, secret } = await wh.create({ url: rx.url, events: ['upstream.state_changed'] });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(wh.list()).toEqual([{ ...subscription, events: ['upstream.state_changed'] }]);
    expect(JSON.stringify(wh.list())).not.toContain(secret);
    hub.subscribe((e) => wh.dispatch(e));
    const sent = [stateChange(hub, 'recovering'), stateChange(hub, 'available')];
    hub.publish('tunnel.connected', { tunnel: 't', at: 1, reason: null }); // not subscribed
    await wh.idle();

    expect(rx.received).toHaveLength(2);
    const verifier = new Webhook(secret);
    const payloads = rx.received.map(
      (r) => verifier.verify(r.body, r.headers as Record<string, string>) as McpPipeEvent,
    );
    expect(payloads).toEqual(sent);
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual(sent.map((e) => e.id));
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32).toString('base64')}`).verify(
        rx.received[0]!.body,
        rx.received[0]!.headers as Record<string, string>,
      ),
    ).toThrow();
    expect(wh.deliveries(subscription.id)).toMatchObject([
      { eventId: sent[1]!.id, status: 'delivered', attempts: 1, statusCode: 204, error: null },
      { eventId: sent[0]!.id, status: 'delivered', attempts: 1, statusCode: 204, error: null },
    ]);
  });

  it('receiver down for the first two attempts: delivered on the third, in order, and logged', async () => {
    const rx = await receiver([503, 500]);
    const hub = new EventHub();
    const wh = await WebhookDeliverer.open({ allowPrivate: true, retryDelaysMs: [20, 40, 80, 160, 320] });
    cleanup.push(() => wh.close());
    const { subscription, secret } = await wh.create({ url: rx.url, events: ['upstream.state_changed'] });
    hub.subscribe((e) => wh.dispatch(e));
    const first = stateChange(hub, 'recovering');
    const second = stateChange(hub, 'available');
    await wh.idle();

    // the first event is tried three times before the second is sent at all (per-subscription order)
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([
      first.id,
      first.id,
      first.id,
      second.id,
    ]);
    const verifier = new Webhook(secret);
    for (const r of rx.received) verifier.verify(r.body, r.headers as Record<string, string>);
    const [log2, log1] = wh.deliveries(subscription.id);
    expect(log1).toMatchObject({
      eventId: first.id,
      status: 'delivered',
      attempts: 3,
      statusCode: 204,
      error: null,
    });
    expect(log1!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(log2).toMatchObject({ eventId: second.id, status: 'delivered', attempts: 1 });
  });

  it('retries at growing intervals, 6 attempts at most, then logs the failure and moves on', async () => {
    const clock = new VirtualClock(0);
    const attempts: { at: number; req: WebhookRequest }[] = [];
    const wh = await WebhookDeliverer.open({
      allowPrivate: true,
      clock,
      transport: async (req) => {
        attempts.push({ at: clock.now(), req });
        return { status: 500 };
      },
    });
    const { subscription } = await wh.create({ url: 'http://hooks.example/x', events: ['tool.changed'] });
    const hub = new EventHub({ clock });
    hub.subscribe((e) => wh.dispatch(e));
    hub.publish('tool.changed', {
      tunnel: null,
      upstream: 'a',
      tool: 't',
      before: 'sha256:1',
      after: 'sha256:2',
    });
    const flush = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    await flush();
    for (const delay of [5_000, 30_000, 120_000, 600_000, 2_700_000]) {
      const before = attempts.length;
      clock.advance(delay - 1);
      await flush();
      expect(attempts).toHaveLength(before); // not early
      clock.advance(1);
      await flush();
    }
    clock.advance(24 * 3_600_000);
    await flush();
    await wh.idle();
    // 6 attempts in all, at growing intervals: 5 s, 30 s, 2 min, 10 min, 45 min (about an hour)
    expect(attempts.map((a) => a.at)).toEqual([0, 5_000, 35_000, 155_000, 755_000, 3_455_000]);
    expect(attempts.every((a) => a.req.timeoutMs === 10_000)).toBe(true);
    expect(wh.deliveries(subscription.id)[0]).toMatchObject({
      status: 'failed',
      attempts: 6,
      statusCode: 500,
      error: 'the target answered HTTP 500',
    });
  });

  it('refuses private, loopback and link-local targets unless allowed, at creation and at delivery', async () => {
    const wh = await WebhookDeliverer.open();
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://[::1]/x',
      'http://169.254.169.254/latest',
      'http://10.1.2.3/',
      'http://[::ffff:192.168.0.1]/',
    ]) {
      await expect(wh.create({ url, events: ['tool.changed'] })).rejects.toMatchObject({
        code: 'MCPP_EVENTS_PRIVATE_TARGET',
        message: expect.stringContaining('start the gateway with MCPPIPE_WEBHOOKS_ALLOW_PRIVATE=1'),
      });
    }
    await expect(wh.create({ url: 'ftp://x.example/', events: ['tool.changed'] })).rejects.toMatchObject({
      code: 'MCPP_EVENTS_INVALID_WEBHOOK',
    });
    await expect(wh.create({ url: 'https://x.example/', events: ['nope'] })).rejects.toMatchObject({
      code: 'MCPP_EVENTS_INVALID_WEBHOOK',
    });

    // DNS rebinding: public at creation, loopback when the delivery connects
    const rx = await receiver();
    const port = new URL(rx.url).port;
    let answers = 0;
    const rebinding = await WebhookDeliverer.open({
      retryDelaysMs: [],
      resolver: async () => [{ address: answers++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }],
    });
    const { subscription } = await rebinding.create({
      url: `http://hooks.example:${port}/x`,
      events: ['tool.changed'],
    });
    rebinding.dispatch(
      new EventHub().publish('tool.changed', {
        tunnel: null,
        upstream: 'a',
        tool: 't',
        before: 'x',
        after: 'y',
      }),
    );
    await rebinding.idle();
    expect(rx.received).toHaveLength(0);
    expect(rebinding.deliveries(subscription.id)[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      statusCode: null,
      error: expect.stringContaining('127.0.0.1'),
    });
  });

  it("refuses an event type its scope never publishes, naming the ones it does (the gateway's own scope)", async () => {
    const wh = await WebhookDeliverer.open({
      allowPrivate: true,
      eventTypes: ['upstream.state_changed', 'tool.changed'],
    });
    await expect(
      wh.create({ url: 'http://127.0.0.1:9/x', events: ['tunnel.connected'] }),
    ).rejects.toMatchObject({
      code: 'MCPP_EVENTS_INVALID_WEBHOOK',
      message: expect.stringMatching(
        /"tunnel\.connected" never happens in this scope; use: upstream\.state_changed, tool\.changed \(tunnel events: a tunnel's own webhooks\)/,
      ),
    });
    await expect(wh.create({ url: 'http://127.0.0.1:9/x', events: ['nope'] })).rejects.toMatchObject({
      message: expect.stringContaining(
        'unknown event type "nope"; use: upstream.state_changed, tool.changed',
      ),
    });
    const { subscription } = await wh.create({ url: 'http://127.0.0.1:9/x', events: ['tool.changed'] });
    expect(subscription.events).toEqual(['tool.changed']);
    expect(wh.list()).toHaveLength(1);
    wh.close();
  });

  it('does not follow redirects', async () => {
    const rx = await receiver([302]);
    const wh = await WebhookDeliverer.open({ allowPrivate: true, retryDelaysMs: [] });
    const { subscription } = await wh.create({ url: rx.url, events: ['tool.changed'] });
    wh.dispatch(
      new EventHub().publish('tool.changed', {
        tunnel: null,
        upstream: 'a',
        tool: 't',
        before: 'x',
        after: 'y',
      }),
    );
    await wh.idle();
    expect(rx.received).toHaveLength(1);
    expect(wh.deliveries(subscription.id)[0]).toMatchObject({ status: 'failed', statusCode: 302 });
  });
});
