// A minimal Chrome DevTools Protocol client over a WebSocket to a process started with `--inspect=127.0.0.1:0`
// (Node 20 has no WebSocket client): enough to collect garbage and read the live heap without a heap snapshot,
// whose own allocations would inflate the RSS being measured. Text frames only, loopback only.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

const TIMEOUT_MS = 30_000;

/** Connects to `ws://127.0.0.1:PORT/UUID` (printed by node on stderr as `Debugger listening on …`). */
export function openInspector(wsUrl) {
  const url = new URL(wsUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('inspector handshake timed out'));
    }, TIMEOUT_MS);
    let buf = Buffer.alloc(0);
    let open = false;
    let nextId = 1;
    const pending = new Map();
    const onFrames = () => {
      while (buf.length >= 2) {
        let len = buf[1] & 0x7f;
        let at = 2;
        if (len === 126) {
          if (buf.length < 4) return;
          len = buf.readUInt16BE(2);
          at = 4;
        } else if (len === 127) {
          if (buf.length < 10) return;
          len = Number(buf.readBigUInt64BE(2));
          at = 10;
        }
        if (buf.length < at + len) return;
        const opcode = buf[0] & 0x0f;
        const payload = buf.subarray(at, at + len);
        buf = buf.subarray(at + len);
        if (opcode !== 1) continue;
        const msg = JSON.parse(payload.toString('utf8'));
        const p = msg.id !== undefined ? pending.get(msg.id) : undefined;
        if (!p) continue;
        pending.delete(msg.id);
        if (msg.error) p.reject(new Error(msg.error.message));
        else p.resolve(msg.result);
      }
    };
    const send = (method, params = {}) =>
      new Promise((res, rej) => {
        const id = nextId++;
        pending.set(id, { resolve: res, reject: rej });
        const data = Buffer.from(JSON.stringify({ id, method, params }));
        const mask = randomBytes(4);
        const head =
          data.length < 126
            ? Buffer.from([0x81, 0x80 | data.length])
            : Buffer.from([0x81, 0x80 | 126, data.length >> 8, data.length & 0xff]);
        const masked = Buffer.alloc(data.length);
        for (let i = 0; i < data.length; i++) masked[i] = data[i] ^ mask[i % 4];
        socket.write(Buffer.concat([head, mask, masked]));
        setTimeout(() => {
          if (pending.delete(id)) rej(new Error(`${method} timed out`));
        }, TIMEOUT_MS).unref();
      });
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (!open) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString();
        buf = buf.subarray(end + 4);
        if (!head.startsWith('HTTP/1.1 101')) {
          clearTimeout(timer);
          reject(new Error(`inspector refused the upgrade: ${head.split('\r\n')[0]}`));
          socket.destroy();
          return;
        }
        open = true;
        clearTimeout(timer);
        resolve({ send, close: () => socket.destroy() });
      }
      onFrames();
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      for (const p of pending.values()) p.reject(err);
      reject(err);
    });
    socket.write(
      `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  });
}

/** Collects garbage in the inspected process and returns its live JS heap in bytes (V8's used heap size). */
export async function liveHeapBytes(inspector) {
  await inspector.send('HeapProfiler.collectGarbage');
  const { usedSize } = await inspector.send('Runtime.getHeapUsage');
  return usedSize;
}
