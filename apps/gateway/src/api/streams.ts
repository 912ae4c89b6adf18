/**
 * SSE on an `/api` route: hijacks the reply and streams a hub with `Last-Event-ID` resume and pings (E2); every
 * open stream is closed when the app closes.
 *
 * @module
 */
import { openEventStream, type EventHub, type EventStream } from '@mcppipe/events';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * @param app - the plugin instance (its `preClose` ends the streams)
 * @returns `stream(req, reply, hub)`
 */
export function eventStreams(app: FastifyInstance) {
  const streams = new Set<EventStream>();
  app.addHook('preClose', async () => streams.forEach((s) => s.close()));
  return (req: FastifyRequest, reply: FastifyReply, hub: EventHub): void => {
    reply.hijack();
    const stream = openEventStream(reply.raw, hub, { lastEventId: req.headers['last-event-id'] });
    streams.add(stream);
    void stream.closed.then(() => streams.delete(stream));
  };
}
