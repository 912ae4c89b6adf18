import { describe, expect, it } from 'vitest';
import { FRAME_BATCH_BYTES, FrameBatch } from './frameBatch.js';

describe('FrameBatch', () => {
  it('gives back every frame added, in order, as UTF-8 bytes', () => {
    const batch = new FrameBatch();
    const frames = ['data: a\n\n', 'data: é→😀\n\n', 'data: b\n\n'];
    for (const f of frames) batch.add(f);
    expect(batch.bytes).toBe(Buffer.byteLength(frames.join('')));
    expect(batch.take().toString('utf8')).toBe(frames.join(''));
    expect(batch.take().length).toBe(0);
  });

  it('continues a batch larger than one buffer in the next, and joins them when taken', () => {
    const batch = new FrameBatch();
    const frames = Array.from({ length: 1_000 }, (_, i) => `id: ${i}\ndata: ${'ü'.repeat(i % 300)}\n\n`);
    for (const f of frames) batch.add(f);
    const out = batch.take();
    expect(out.length).toBeGreaterThan(2 * FRAME_BATCH_BYTES);
    expect(out.toString('utf8')).toBe(frames.join(''));
  });

  it('keeps a frame larger than a buffer whole', () => {
    const batch = new FrameBatch();
    const big = `data: ${'x'.repeat(3 * FRAME_BATCH_BYTES)}\n\n`;
    batch.add('data: a\n\n');
    batch.add(big);
    expect(batch.take().toString('utf8')).toBe(`data: a\n\n${big}`);
  });

  it('never writes into bytes it handed out (a stream may still be sending them)', () => {
    const batch = new FrameBatch();
    batch.add('data: first\n\n');
    const first = batch.take();
    batch.add('data: second\n\n');
    expect(first.toString('utf8')).toBe('data: first\n\n');
    expect(batch.take().toString('utf8')).toBe('data: second\n\n');
  });
});
