import { describe, expect, it } from 'vitest';
import { ReceiveGate } from '../../../lib/adapters/sqs/receive-gate';

/** Starts `n` enters and returns how many of them got in (after the microtasks settle). */
async function entering(gate: ReceiveGate, n: number): Promise<{ admitted: () => number }> {
  let admitted = 0;
  for (let i = 0; i < n; i += 1) void gate.enter().then(() => (admitted += 1));
  await Promise.resolve();
  await Promise.resolve();
  return { admitted: () => admitted };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ReceiveGate (how many event source loops wait in a receive at once)', () => {
  it('lets two loops receive on a quiet queue, and the next in as each receive returns', async () => {
    const gate = new ReceiveGate(32, 10);
    const loops = await entering(gate, 32);
    await settle();
    expect(loops.admitted()).toBe(2);
    gate.received(3);
    await settle();
    expect(loops.admitted()).toBe(3);
    expect(gate.receivers).toBe(2);
  });

  it('grows by one for each full batch, up to the loops, and shrinks by one for each empty receive down to two', async () => {
    const gate = new ReceiveGate(4, 10);
    const loops = await entering(gate, 10);
    await settle();
    expect(loops.admitted()).toBe(2);
    gate.received(10);
    await settle();
    expect(gate.receivers).toBe(3);
    expect(loops.admitted()).toBe(4);
    gate.received(10);
    gate.received(10);
    gate.received(10);
    await settle();
    expect(gate.receivers).toBe(4);
    expect(loops.admitted()).toBe(8);
    // Four receiving, two loops still waiting: two empty receives take it back to two receivers, and
    // only then does a returning receive let the next loop in
    gate.received(0);
    gate.received(0);
    await settle();
    expect(gate.receivers).toBe(2);
    expect(loops.admitted()).toBe(8);
    gate.received(0);
    await settle();
    expect(gate.receivers).toBe(2);
    expect(loops.admitted()).toBe(9);
  });

  it('never lets more loops in than it has', async () => {
    const one = new ReceiveGate(1, 10);
    const loops = await entering(one, 3);
    await settle();
    expect(loops.admitted()).toBe(1);
    one.received(10);
    await settle();
    expect(one.receivers).toBe(1);
    expect(() => new ReceiveGate(-1, 10)).toThrow(/loops must be a whole number ≥ 0, got -1/);
    expect(() => new ReceiveGate(0, 10)).not.toThrow();
  });

  it('lets every waiting loop in when it opens (a stop)', async () => {
    const gate = new ReceiveGate(32, 10);
    const loops = await entering(gate, 32);
    gate.open();
    await settle();
    expect(loops.admitted()).toBe(32);
  });
});
