import { afterEach, describe, expect, it } from 'vitest';
import { onlineManager } from '@tanstack/react-query';
import { createQueryClient } from '../../src/renderer/src/queries/client';

/** The window talks to a local engine only: "offline" as the OS reports it must not stop it. */
describe('renderer query client while the OS reports offline', () => {
  afterEach(() => onlineManager.setOnline(true));

  it('runs queries and mutations instead of pausing them', async () => {
    onlineManager.setOnline(false);
    const client = createQueryClient();
    const query = client.fetchQuery({ queryKey: ['local'], queryFn: async () => 'loaded' });
    // react-query's default network mode would park the fetch as 'paused' until the OS is online.
    expect(client.getQueryState(['local'])?.fetchStatus).toBe('fetching');
    await expect(query).resolves.toBe('loaded');
    const mutation = client.getMutationCache().build(client, { mutationFn: async (n: number) => n + 1 });
    const saved = mutation.execute(41);
    await Promise.resolve();
    expect(mutation.state.isPaused).toBe(false);
    await expect(saved).resolves.toBe(42);
    client.clear();
  });
});
