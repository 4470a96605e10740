import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestGate } from '../../src/main/request-gate';
import { primeInOrder } from '../../src/main/workers/prime-order';

afterEach(() => {
  vi.useRealTimers();
});

describe('primeInOrder', () => {
  it('primes the recalls at once and the searches only once requests have paused for the spell', async () => {
    vi.useFakeTimers();
    const ran: string[] = [];
    const gate = new RequestGate();
    const done = primeInOrder(
      {
        recalls: ['r1', 'r2'].map((n) => () => void ran.push(n)),
        searches: ['s1', 's2'].map((n) => () => void ran.push(n)),
      },
      gate,
      250,
    ).then(() => ran.push('done'));
    // A request every 100 ms, as an agent's first calls come: no search step runs among them.
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(100);
      gate.enter();
      gate.leave();
    }
    expect(ran).toEqual(['r1', 'r2']);
    // 200 ms after the last request: still not a spell of 250.
    await vi.advanceTimersByTimeAsync(200);
    expect(ran).toEqual(['r1', 'r2']);
    await vi.advanceTimersByTimeAsync(60);
    await done;
    expect(ran).toEqual(['r1', 'r2', 's1', 's2', 'done']);
  });

  it('a search step waits for a request in flight, even one that came after the spell began', async () => {
    vi.useFakeTimers();
    const ran: string[] = [];
    const gate = new RequestGate();
    gate.enter(); // a long request, in flight when the priming starts
    void primeInOrder({ recalls: [], searches: [() => void ran.push('s1')] }, gate, 50);
    await vi.advanceTimersByTimeAsync(500);
    expect(ran).toEqual([]);
    gate.leave();
    await vi.advanceTimersByTimeAsync(49);
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);
    expect(ran).toEqual(['s1']);
  });
});
