import { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/** Every chunk goes as one binary message (one options object for all of them). */
const BINARY = { binary: true } as const;

/**
 * The byte stream HTTP/2 runs over: each chunk one binary WebSocket message, backpressure both ways. Like `ws`'s
 * `createWebSocketStream`, except that it never cuts the socket: once the WebSocket is closing, late writes
 * (an h2 SETTINGS ack, a GOAWAY) are dropped instead of failing the stream, and destroying the stream sends a
 * close frame instead of terminating. So a `close()` is a real closing handshake, and the peer learns of it
 * before the closer's `close` event.
 *
 * @param ws - an open WebSocket
 * @returns the duplex to hand to `http2`
 */
export function wsDuplex(ws: WebSocket): Duplex {
  const duplex = new Duplex({
    allowHalfOpen: false,
    read() {
      if (ws.isPaused) ws.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      if (ws.readyState !== ws.OPEN) {
        callback();
        return;
      }
      ws.send(chunk, BINARY, (err) => callback(ws.readyState === ws.OPEN ? err : undefined));
    },
    // h2 writes many small frames per request; batching what queued up into one message cuts per-message cost
    writev(chunks, callback) {
      if (ws.readyState !== ws.OPEN) {
        callback();
        return;
      }
      let data: Buffer;
      if (chunks.length === 1) data = chunks[0]!.chunk as Buffer;
      else {
        const list: Buffer[] = [];
        for (const c of chunks) list.push(c.chunk as Buffer);
        data = Buffer.concat(list);
      }
      ws.send(data, BINARY, (err) => callback(ws.readyState === ws.OPEN ? err : undefined));
    },
    final(callback) {
      if (ws.readyState === ws.OPEN) ws.close(1000);
      callback();
    },
    destroy(err, callback) {
      if (ws.readyState === ws.OPEN) ws.close(1000);
      callback(err);
    },
  });
  ws.on('message', (data: Buffer) => {
    if (!duplex.push(data)) ws.pause();
  });
  ws.once('close', () => {
    duplex.push(null);
    duplex.destroy();
  });
  ws.on('error', () => {});
  duplex.on('error', () => {});
  return duplex;
}
