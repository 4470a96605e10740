import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources } from '../helpers/home';
import { createReadLane } from '../../src/main/workers/read-lane';
import { callTool } from '../../src/main/api/mcp';
import { OWNER } from '../../src/main/commands/principal';

const res = testResources();
afterEach(() => res.release());

describe('a turn whose recall fails', () => {
  it('goes on without memory, but says so in its output, the log and the stored user message', async () => {
    const t = res.engine();
    const s = await t.run('sessions.create', { projectId: 'billing' });
    await t.run('facts.add', { sessionId: s.id, text: 'We deploy billing with Helm charts', scope: 'project' });
    const healthy = await t.run('turns.begin', { sessionId: s.id, userText: 'how do we deploy billing with helm' });
    expect(healthy.recallStatus).toEqual({ status: 'ok', reason: null });
    expect(healthy.userMessage.recallDegraded).toBeUndefined();

    // A real read lane whose workers cannot open the database (as when they could not start at all).
    await t.engine.readLane.close();
    t.engine.readLane = createReadLane({
      dbPath: path.join(t.home, 'gone', 'memory.db'),
      wikiDir: t.engine.paths.wiki,
      size: 1,
    });
    const turn = await t.run('turns.begin', { sessionId: s.id, userText: 'how do we deploy billing with helm again' });
    expect(turn.recallStatus.status).toBe('degraded');
    expect(turn.recallStatus.reason).toMatch(/read lane|database|open/i);
    expect(turn.recallStatus.reason!.length).toBeLessThanOrEqual(300);
    expect(turn.context.recall).toMatchObject({ facts: [], block: null });
    expect(turn.userMessage.recallDegraded).toBe(turn.recallStatus.reason);

    const log = readFileSync(t.engine.log.file, 'utf8');
    expect(log).toContain(`turns.begin: recall failed for session ${s.id}`);
    expect(log).toContain(turn.recallStatus.reason!);

    // The transcript keeps the reason on that turn only.
    const { messages } = await t.run('messages.list', { sessionId: s.id, includeHidden: true });
    const degraded = messages.filter((m) => m.recallDegraded);
    expect(degraded.map((m) => m.id)).toEqual([turn.userMessage.id]);
    expect(degraded[0]!.recallDegraded).toBe(turn.recallStatus.reason);

    // An agent reads it first in the tool text.
    const viaMcp = await callTool(
      t.engine,
      'memory_begin_turn',
      { sessionId: s.id, userText: 'and the staging deploy?' },
      OWNER,
    );
    expect((viaMcp.content[0] as { text: string }).text).toMatch(/^\(Memory recall failed for this turn/);
    expect(viaMcp.structuredContent).toMatchObject({ recallStatus: { status: 'degraded' } });
    await t.engine.readLane.close();
  });
});
