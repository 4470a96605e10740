import { afterEach, describe, expect, it } from 'vitest';
import { testResources, type TestEngine } from '../helpers/home';

/**
 * In memory_search's facts, a query word no visible fact holds is widened to the visible word it
 * begins ("postgres" finds "PostgreSQL") or cut back to one that begins it ("deployment" finds
 * "deploy"). Only the asking session's scopes are read, and a word some visible fact holds is
 * taken as typed.
 */
describe('query words widened to the words they begin', () => {
  const res = testResources();
  afterEach(() => res.release());
  const searched = async (t: TestEngine, sessionId: string, query: string) =>
    (await t.run('memory.search', { sessionId, query, sources: ['facts'] })).results.map((r) => r.snippet);
  const recalled = async (t: TestEngine, sessionId: string, text: string) =>
    (await t.run('memory.recall', { sessionId, text })).facts.map((f) => f.text);
  const remember = (t: TestEngine, sessionId: string, text: string) =>
    t.run('facts.add', { sessionId, text, scope: 'project' });

  it('finds PostgreSQL for "postgres" and deployment for "deploy" in a search; recall keeps the words as typed', async () => {
    const t = res.engine();
    const writer = await t.run('sessions.create', { projectId: 'app' });
    await remember(t, writer.id, 'The database is PostgreSQL 16.');
    await remember(t, writer.id, 'Every deployment goes through the staging cluster first.');
    await remember(t, writer.id, 'The cache is Redis.');
    await remember(t, writer.id, 'PostgreSQL runs on Kubernetes.');
    const asker = await t.run('sessions.create', { projectId: 'app' });
    expect(await searched(t, asker.id, 'postgres').then((r) => r.sort())).toEqual([
      'PostgreSQL runs on Kubernetes.',
      'The database is PostgreSQL 16.',
    ]);
    expect(await searched(t, asker.id, 'deploy staging')).toEqual([
      'Every deployment goes through the staging cluster first.',
    ]);
    expect((await searched(t, asker.id, 'postgres kube'))[0]).toBe('PostgreSQL runs on Kubernetes.');
    // Recall puts facts in front of the model unasked: only words as typed count there.
    expect(await recalled(t, asker.id, 'Is postgres on kube?')).toEqual([]);
    expect((await recalled(t, asker.id, 'Is PostgreSQL on Kubernetes?'))[0]).toBe('PostgreSQL runs on Kubernetes.');
  });

  it('cuts a word back to the longest word that begins it: deployment finds deploy', async () => {
    const t = res.engine();
    const writer = await t.run('sessions.create', { projectId: 'app' });
    await remember(t, writer.id, 'We deploy with Docker Compose.');
    await remember(t, writer.id, 'Replicas lag at night.');
    const asker = await t.run('sessions.create', { projectId: 'app' });
    expect(await searched(t, asker.id, 'deployment')).toEqual(['We deploy with Docker Compose.']);
    expect(await searched(t, asker.id, 'replication')).toEqual(['Replicas lag at night.']);
    // Never below 60% of the word typed: "dockerization" is not cut back to "docker".
    expect(await searched(t, asker.id, 'dockerization')).toEqual([]);
  });

  it('ranks a widened word below the words typed in full', async () => {
    const t = res.engine();
    const writer = await t.run('sessions.create', { projectId: 'app' });
    await remember(t, writer.id, 'Billing runs on the first of the month.');
    await remember(t, writer.id, 'Billing emails go out from the billing service.');
    await remember(t, writer.id, 'Failed billing retries three times.');
    await remember(t, writer.id, 'The planetarium demo opens at nine.');
    const asker = await t.run('sessions.create', { projectId: 'app' });
    // "plan" begins only the rare "planetarium", whose weight alone would outrank "billing".
    const hits = await searched(t, asker.id, 'plan billing');
    expect(hits.at(-1)).toBe('The planetarium demo opens at nine.');
    expect(hits).toHaveLength(4);
  });

  it('takes a word some visible fact holds as typed, and never widens short words or words with digits', async () => {
    const t = res.engine();
    const writer = await t.run('sessions.create', { projectId: 'app' });
    await remember(t, writer.id, 'We deploy on Fridays.');
    await remember(t, writer.id, 'Every deployment is tagged.');
    await remember(t, writer.id, 'The API listens on port 80801.');
    await remember(t, writer.id, 'Posting to the queue is idempotent.');
    const asker = await t.run('sessions.create', { projectId: 'app' });
    expect(await searched(t, asker.id, 'deploy')).toEqual(['We deploy on Fridays.']);
    expect(await searched(t, asker.id, 'pos')).toEqual([]);
    expect(await searched(t, asker.id, '8080')).toEqual([]);
  });

  it("reads only the asking session's scopes: another project's words are never chosen", async () => {
    const t = res.engine();
    const other = await t.run('sessions.create', { projectId: 'other' });
    for (let i = 0; i < 5; i++) await remember(t, other.id, `Postgresx replica ${i} is read-only.`);
    await remember(t, other.id, 'Kubernetes runs the batch jobs.');
    const writer = await t.run('sessions.create', { projectId: 'app' });
    await remember(t, writer.id, 'The database is PostgreSQL 16.');
    const asker = await t.run('sessions.create', { projectId: 'app' });
    // "postgresx" is the commoner word in the store, but not in this project.
    expect(await searched(t, asker.id, 'postgres')).toEqual(['The database is PostgreSQL 16.']);
    expect(await searched(t, asker.id, 'kube')).toEqual([]);
  });

  it('forgets with the fact: a forgotten word is no longer a widening', async () => {
    const t = res.engine();
    const writer = await t.run('sessions.create', { projectId: 'app' });
    const first = await remember(t, writer.id, 'The database is PostgreSQL 16.');
    const second = await remember(t, writer.id, 'Backups of PostgreSQL run nightly.');
    await remember(t, writer.id, 'The old database was Postgis on a VM.');
    const asker = await t.run('sessions.create', { projectId: 'app' });
    // The word more visible facts hold wins.
    expect((await searched(t, asker.id, 'postg')).sort()).toEqual([
      'Backups of PostgreSQL run nightly.',
      'The database is PostgreSQL 16.',
    ]);
    for (const f of [first, second]) await t.run('memory.forget', { sessionId: asker.id, factId: f.fact.id });
    expect(await searched(t, asker.id, 'postg')).toEqual(['The old database was Postgis on a VM.']);
  });
});
