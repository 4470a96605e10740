import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testResources, type TestEngine } from '../helpers/home';
import {
  chatgptExport,
  chatgptExportWithNewTurn,
  claudeExport,
  writeChatGptExport,
  writeJson,
} from '../fixtures/history-exports';
import type { JobProgress } from '../../src/main/events';
import { AGENT_TOOLS } from '../../src/main/api/mcp';

const res = testResources();
afterEach(() => res.release());

const count = (t: TestEngine, sql: string, ...params: unknown[]) =>
  (t.engine.db
    .prepare(sql)
    .pluck()
    .get(...params) as number) ?? 0;
const T0 = 1_714_000_000_000;

/** A file in a fresh folder (outside the home, as a person's download would be). */
function exportFile(name: string, value: unknown): string {
  return writeJson(path.join(res.home(), name), value);
}

async function sessionsOf(t: TestEngine) {
  const { sessions } = await t.run('sessions.list', { limit: 500 });
  return Promise.all(sessions.map((s) => t.run('sessions.get', { sessionId: s.id })));
}

describe('import conversations: ChatGPT', () => {
  it('makes one top-level session per conversation with title, real times, the chosen context and provenance', async () => {
    const t = res.engine();
    const file = exportFile('conversations.json', chatgptExport());
    const r = await t.run('import.conversations', { from: file, projectId: 'travel' });
    expect(r).toMatchObject({
      format: 'chatgpt',
      conversations: 3,
      conversationsCreated: 2,
      conversationsSkipped: 1,
      messagesAdded: 10,
      interrupted: false,
      extraction: { waited: false, pendingSessions: 2 },
    });
    expect(r.problems).toEqual([
      {
        file,
        position: expect.stringMatching(/^conversation 2 \(byte \d+\)$/),
        conversationId: 'cg-empty',
        reason: 'has no user or assistant messages with text; nothing to import',
      },
    ]);
    const sessions = await sessionsOf(t);
    const trip = sessions.find((s) => s.title === 'Trip planning')!;
    expect(trip).toMatchObject({
      kind: 'top-level',
      projectId: 'travel',
      agentName: 'chatgpt',
      createdAt: T0 + 250,
      messageCount: 6,
      importedFrom: { source: 'chatgpt', conversationId: 'cg-branchy' },
    });
    const { messages } = await t.run('messages.list', { sessionId: trip.id, includeHidden: true });
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'I moved to Lisbon in March.'],
      ['assistant', 'Welcome to Lisbon!'],
      ['user', 'Find me a quiet coworking space.'],
      ['assistant', 'Two quiet places: Second Home and Heden.'],
      ['user', 'Is this one quiet?'],
      ['assistant', 'Yes, it has a silent floor.'],
    ]);
    // Real times; the message without one comes right after the one before it.
    expect(messages.map((m) => m.createdAt)).toEqual([
      T0 + 10_000,
      T0 + 20_000,
      T0 + 50_000,
      T0 + 70_000,
      T0 + 70_001,
      T0 + 90_000,
    ]);
  });

  it('importing the same file again duplicates nothing; a later export adds only the new messages', async () => {
    const t = res.engine();
    const file = exportFile('conversations.json', chatgptExport());
    await t.run('import.conversations', { from: file });
    const again = await t.run('import.conversations', { from: file });
    expect(again).toMatchObject({
      conversationsCreated: 0,
      conversationsUpdated: 0,
      conversationsUnchanged: 2,
      messagesAdded: 0,
      messagesAlreadyImported: 10,
      transactions: 0,
    });
    expect(count(t, 'SELECT count(*) FROM sessions')).toBe(2);
    expect(count(t, 'SELECT count(*) FROM session_messages')).toBe(10);

    const later = exportFile('conversations.json', chatgptExportWithNewTurn());
    const update = await t.run('import.conversations', { from: later });
    expect(update).toMatchObject({ conversationsCreated: 0, conversationsUpdated: 1, messagesAdded: 2 });
    expect(count(t, 'SELECT count(*) FROM sessions')).toBe(2);
    const plain = (await sessionsOf(t)).find((s) => s.title === 'Billing database')!;
    const { messages } = await t.run('messages.list', { sessionId: plain.id });
    expect(messages.map((m) => m.content).slice(-3)).toEqual([
      'Understood: named exports only.',
      'I prefer tabs over spaces in this repo.',
      'Tabs it is.',
    ]);
    expect(messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await t.run('import.conversations', { from: later })).messagesAdded).toBe(0);
  });

  it('a forgotten conversation leaves no provenance behind, and a new import brings it back', async () => {
    const t = res.engine();
    const file = exportFile('conversations.json', chatgptExport());
    await t.run('import.conversations', { from: file });
    const trip = (await sessionsOf(t)).find((s) => s.title === 'Trip planning')!;
    await t.run('sessions.delete', { sessionId: trip.id });
    expect(count(t, 'SELECT count(*) FROM import_messages WHERE session_id = ?', trip.id)).toBe(0);
    expect(count(t, "SELECT count(*) FROM import_conversations WHERE original_id = 'cg-branchy'")).toBe(0);
    const r = await t.run('import.conversations', { from: file });
    expect(r).toMatchObject({ conversationsCreated: 1, conversationsUnchanged: 1, messagesAdded: 6 });
  });
});

describe('dialogue search over imported messages', () => {
  it('indexes them as the insert trigger would: searchable in their context, newest at the smallest rowid', async () => {
    const t = res.engine();
    await t.run('import.conversations', {
      from: exportFile('conversations.json', chatgptExport()),
      projectId: 'billing',
    });
    const live = await t.run('sessions.create', { projectId: 'billing', title: 'live' });
    const added = await t.run('messages.add', { sessionId: live.id, role: 'user', content: 'Which JSONB columns?' });
    const { results } = await t.run('memory.search', {
      sessionId: live.id,
      query: 'postgres jsonb',
      sources: ['dialogue'],
    });
    expect(results.map((r) => r.snippet)).toEqual(
      expect.arrayContaining([expect.stringContaining('Postgres over MySQL because we need JSONB')]),
    );
    const other = await t.run('sessions.create', { projectId: 'elsewhere' });
    const outside = await t.run('memory.search', {
      sessionId: other.id,
      query: 'postgres jsonb',
      sources: ['dialogue'],
    });
    expect(outside.results).toEqual([]);
    const rows = t.engine.db
      .prepare(
        `SELECT r.rowid, m.id, m.created_at FROM dialogue_index_rows r JOIN session_messages m ON m.id = r.message_id
         ORDER BY r.rowid`,
      )
      .all() as { rowid: number; id: string; created_at: number }[];
    expect(rows).toHaveLength(11);
    // The live message came last, through the trigger: the smallest rowid of all.
    expect(rows[0]!.id).toBe(added.id);
    const imported = rows.slice(1);
    expect(new Set(imported.map((r) => r.rowid)).size).toBe(10);
    expect(count(t, 'SELECT count(*) FROM session_messages_fts')).toBe(11);
    expect(count(t, 'SELECT count(*) FROM dialogue_index_deferred')).toBe(0);
    // Within a conversation, newer messages have smaller rowids, as migration 21 orders them.
    const trip = t.engine.db
      .prepare(
        `SELECT r.rowid FROM dialogue_index_rows r JOIN session_messages m ON m.id = r.message_id
         JOIN import_conversations c ON c.session_id = m.session_id WHERE c.original_id = 'cg-branchy' ORDER BY m.seq`,
      )
      .pluck()
      .all() as number[];
    expect(trip).toEqual([...trip].sort((a, b) => b - a));
  });
});

describe('import conversations: Claude and JSONL', () => {
  it('imports a Claude export in a folder context, moving a time that goes backwards', async () => {
    const t = res.engine();
    const dir = res.home();
    writeJson(path.join(dir, 'conversations.json'), claudeExport());
    writeFileSync(path.join(dir, 'users.json'), '[]');
    const r = await t.run('import.conversations', { from: dir, folderId: 'running' });
    expect(r).toMatchObject({ format: 'claude', conversationsCreated: 2, messagesAdded: 5, timesAdjusted: 1 });
    const sessions = await sessionsOf(t);
    const marathon = sessions.find((s) => s.importedFrom?.conversationId === 'cl-1')!;
    expect(marathon).toMatchObject({ title: 'Marathon training', folderId: 'running', agentName: 'claude' });
    // No name: the first thing the person said is the title.
    expect(sessions.find((s) => s.importedFrom?.conversationId === 'cl-2')!.title).toBe('Call me Dana.');
    const { messages } = await t.run('messages.list', { sessionId: marathon.id });
    expect(messages.map((m) => m.content)).toEqual([
      "I'm training for the Valencia marathon.",
      'Great goal! Here is a plan.',
      'I run five days a week.',
    ]);
    expect(messages[2]!.createdAt).toBe(messages[1]!.createdAt + 1);
  });

  it('imports the JSONL sample with each conversation in its own context, once', async () => {
    const t = res.engine();
    const sample = path.resolve(__dirname, '../../resources/import-samples/conversations.jsonl');
    const r = await t.run('import.conversations', { from: sample, workspace: '/tmp' });
    expect(r).toMatchObject({ format: 'jsonl', conversationsCreated: 2, messagesAdded: 6, messagesSkipped: 1 });
    const sessions = await sessionsOf(t);
    expect(sessions.map((s) => [s.title, s.projectId, s.folderId, s.workspace]).sort()).toEqual([
      ['Billing database', 'billing', null, null],
      ['Planning the Lisbon trip', null, 'personal', null],
    ]);
    expect((await t.run('import.conversations', { from: sample })).messagesAdded).toBe(0);
  });
});

describe('uploads left behind', () => {
  it('are removed when an engine opens, unless their process still runs', () => {
    const home = res.home();
    mkdirSync(path.join(home, 'tmp'));
    const dead = path.join(home, 'tmp', 'upload-4194303-0123abcd.upload');
    const mine = path.join(home, 'tmp', `upload-${process.pid}-0123abcd.upload`);
    writeFileSync(dead, '[]');
    writeFileSync(mine, '[]');
    res.engine({ home });
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(mine)).toBe(true);
  });
});

describe('who may import', () => {
  it('is not an agent tool: reading a file path is the owner’s act', () => {
    expect(AGENT_TOOLS.filter((t) => t.command.startsWith('import.'))).toEqual([]);
  });
});

describe('progress', () => {
  it('is reported in MB read, growing to the whole file', async () => {
    const t = res.engine();
    const file = path.join(res.home(), 'conversations.json');
    await writeChatGptExport(file, { conversations: 150, messagesPer: 30 });
    const seen: JobProgress[] = [];
    t.engine.events.on('progress', (p) => seen.push(p));
    await t.run('import.conversations', { from: file });
    const mine = seen.filter((p) => p.job === 'conversation import');
    expect(mine.length).toBeGreaterThan(1);
    mine.forEach((p, i) => {
      expect(p.unit).toBe('MB');
      if (i > 0) expect(p.done).toBeGreaterThan(mine[i - 1]!.done);
    });
    expect(mine.at(-1)!.done).toBe(mine.at(-1)!.total);
    expect(mine.at(-1)!.total).toBeGreaterThan(1);
  });
});

describe('JSONL conversations split across the file', () => {
  it('go into one session, written in the same transaction or not', async () => {
    const t = res.engine();
    const file = path.join(res.home(), 'split.jsonl');
    writeFileSync(
      file,
      [
        '{"conversation":"a","title":"A","role":"user","content":"first","createdAt":1000}',
        '{"conversation":"b","role":"user","content":"other","createdAt":1500}',
        '{"conversation":"a","role":"assistant","content":"second","createdAt":2000}',
      ].join('\n'),
    );
    const r = await t.run('import.conversations', { from: file });
    expect(r).toMatchObject({ conversations: 3, conversationsCreated: 2, conversationsUpdated: 1, messagesAdded: 3 });
    const a = (await sessionsOf(t)).find((s) => s.title === 'A')!;
    const { messages } = await t.run('messages.list', { sessionId: a.id });
    expect(messages.map((m) => [m.seq, m.content])).toEqual([
      [1, 'first'],
      [2, 'second'],
    ]);
    expect((await t.run('import.conversations', { from: file })).messagesAdded).toBe(0);
  });
});

describe('bad input', () => {
  it('names the file and the byte offset, and imports nothing of the conversation it stopped in', async () => {
    const t = res.engine();
    const good = JSON.stringify(chatgptExport());
    const cutAt = good.indexOf('"cg-plain"') + 40;
    const cut = path.join(res.home(), 'cut.json');
    writeFileSync(cut, good.slice(0, cutAt));
    await expect(t.run('import.conversations', { from: cut })).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'from',
      message: `from: ${cut}: byte ${cutAt}: ends in the middle of the JSON (the file is cut short)`,
    });
    // The conversation before the cut is in; the cut one is not, not even in part.
    expect(count(t, 'SELECT count(*) FROM sessions')).toBe(1);
    expect(count(t, 'SELECT count(*) FROM import_conversations WHERE original_id = ?', 'cg-plain')).toBe(0);
  });

  it('refuses a file that is not JSON, an unknown shape and a file beyond the size limit, changing nothing', async () => {
    const t = res.engine();
    const dir = res.home();
    const text = path.join(dir, 'notes.txt');
    writeFileSync(text, 'Dear diary');
    await expect(t.run('import.conversations', { from: text })).rejects.toThrow(`${text}: byte 0: is not JSON`);
    const other = exportFile('other.json', [{ messages: [] }]);
    await expect(t.run('import.conversations', { from: other })).rejects.toThrow(
      /other\.json: conversation 0 \(byte 3\): is neither a ChatGPT conversation/,
    );
    // 2 GB, sparse: nothing is read, the size alone refuses it.
    const huge = path.join(dir, 'huge.json');
    const fd = openSync(huge, 'w');
    ftruncateSync(fd, 2 * 1024 ** 3);
    closeSync(fd);
    await expect(t.run('import.conversations', { from: huge })).rejects.toThrow(
      `${huge}: byte 1073741824: the file is 2.0 GiB, above the import limit of 1.0 GiB (import.maxFileBytes in settings.yaml)`,
    );
    await expect(t.run('import.conversations', { from: path.join(dir, 'missing.json') })).rejects.toThrow(
      /from: no such file or folder/,
    );
    await expect(t.run('import.conversations', { from: text, format: 'csv' as never })).rejects.toThrow(/^format: /);
    expect(count(t, 'SELECT count(*) FROM sessions')).toBe(0);
    expect(existsSync(huge)).toBe(true);
  });

  it('a bad JSONL line spoils only its conversation, reported by line number', async () => {
    const t = res.engine();
    const file = path.join(res.home(), 'chat.jsonl');
    writeFileSync(
      file,
      [
        '{"conversation":"a","role":"user","content":"hello","createdAt":1000}',
        '{"conversation":"a","role":"assistant","content":"hi","createdAt":2000}',
        '{"conversation":"b","role":"user","content":"one","createdAt":3000}',
        '{"conversation":"b","role":"user","content":"two"}',
      ].join('\n'),
    );
    const r = await t.run('import.conversations', { from: file });
    expect(r).toMatchObject({ conversationsCreated: 1, conversationsSkipped: 1 });
    expect(r.problems).toEqual([
      {
        file,
        position: 'line 4',
        conversationId: 'b',
        reason: '"createdAt" must be an ISO-8601 time or epoch milliseconds',
      },
    ]);
  });
});

describe('extraction over imported sessions', () => {
  it('runs through the sessions’ own cursors, with evidence on the imported messages', async () => {
    const t = res.engine();
    const file = exportFile('conversations.json', chatgptExportWithNewTurn());
    const r = await t.run('import.conversations', { from: file, projectId: 'billing', waitForExtraction: true });
    expect(r.extraction).toMatchObject({ waited: true, sessions: 2, failed: 0, pendingSessions: 0 });
    const status = await t.run('extraction.status', {});
    expect(status.sessions).toHaveLength(2);
    for (const s of status.sessions) {
      expect(s).toMatchObject({ status: 'idle', pendingMessages: 0 });
      expect(s.lastResponseCount).toBe(s.completedResponses);
    }
    const facts = (await t.run('facts.list', { limit: 100 })).facts.map((f) => f.text);
    expect(facts).toEqual(
      expect.arrayContaining([
        "Let's go with Postgres over MySQL because we need JSONB.",
        'Never use default exports in this codebase.',
      ]),
    );
    const wrongEvidence = count(
      t,
      `SELECT count(*) FROM memory_fact_evidence e
       WHERE e.message_id IS NULL OR e.message_id NOT IN (SELECT message_id FROM import_messages)`,
    );
    expect(wrongEvidence).toBe(0);
    expect((await t.run('import.status', {})).extraction.pendingSessions).toBe(0);
  });

  it('in a long-running process, runs in the background after an import and again after new messages', async () => {
    const t = res.engine();
    t.engine.historyImport.extraction.startBackground();
    const first = exportFile('conversations.json', chatgptExport());
    await t.run('import.conversations', { from: first });
    const settled = async () => {
      for (let i = 0; i < 500 && (await t.run('import.status', {})).extraction.pendingSessions > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return (await t.run('import.status', {})).extraction.pendingSessions;
    };
    expect(await settled()).toBe(0);
    const before = (await t.run('extraction.status', {})).sessions.map((s) => s.cursorSeq).sort();
    expect(before).toEqual([4, 6]);
    await t.run('import.conversations', { from: exportFile('conversations.json', chatgptExportWithNewTurn()) });
    expect(await settled()).toBe(0);
    const after = (await t.run('extraction.status', {})).sessions.map((s) => s.cursorSeq).sort();
    expect(after).toEqual([6, 6]);
    expect((await t.run('facts.list', { limit: 100 })).facts.map((f) => f.text)).toContain(
      'User prefers tabs over spaces in this repo.',
    );
  });
});
