import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestGate } from '../../src/main/request-gate';

afterEach(() => {
  vi.useRealTimers();
});

describe('RequestGate', () => {
  it('idle() resolves at once with nothing in flight, and when the last request leaves', async () => {
    const gate = new RequestGate();
    await gate.idle(60_000);
    gate.enter();
    gate.enter();
    let idle = false;
    const waiting = gate.idle(60_000).then(() => (idle = true));
    gate.leave();
    await Promise.resolve();
    expect(idle).toBe(false);
    gate.leave();
    await waiting;
    expect(gate.inFlight).toBe(0);
  });

  it('quietFor() waits for a spell with no request at all, starting over when one comes', async () => {
    vi.useFakeTimers();
    const gate = new RequestGate();
    let quiet = false;
    void gate.quietFor(1000).then(() => (quiet = true));
    await vi.advanceTimersByTimeAsync(600);
    gate.enter(); // a request in the middle of the spell
    await vi.advanceTimersByTimeAsync(300);
    gate.leave(); // at 900 ms: the quiet spell starts over from here
    await vi.advanceTimersByTimeAsync(950); // the first spell is over, but was interrupted
    expect(quiet).toBe(false);
    await vi.advanceTimersByTimeAsync(100); // 1,050 ms after the request left
    expect(quiet).toBe(true);
  });

  it('busyUntilQuiet() holds background steps back until requests pause for a spell', async () => {
    vi.useFakeTimers();
    const gate = new RequestGate();
    // Quiet since it was made, but not for long enough yet.
    expect(gate.busyUntilQuiet(50)).not.toBeNull();
    await vi.advanceTimersByTimeAsync(50);
    expect(gate.busyUntilQuiet(50)).toBeNull();
    // Each request moves the spell's start; a step may run only 50 ms after the last one left.
    gate.enter();
    expect(gate.busyUntilQuiet(50)).not.toBeNull(); // in flight
    gate.leave();
    let free = false;
    void gate.busyUntilQuiet(50)!.then(() => (free = true));
    await vi.advanceTimersByTimeAsync(30);
    gate.enter(); // the next call of a burst
    gate.leave();
    await vi.advanceTimersByTimeAsync(40); // 70 ms after the first request, 40 after the second
    expect(free).toBe(false);
    expect(gate.busyUntilQuiet(50)).not.toBeNull();
    await vi.advanceTimersByTimeAsync(10);
    expect(free).toBe(true);
    expect(gate.busyUntilQuiet(50)).toBeNull();
  });

  it('nextRequest() resolves when the next request enters, not before', async () => {
    const gate = new RequestGate();
    let entered = false;
    void gate.nextRequest().then(() => (entered = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(entered).toBe(false);
    gate.enter();
    await new Promise((resolve) => setImmediate(resolve));
    expect(entered).toBe(true);
    gate.leave();
  });
});
