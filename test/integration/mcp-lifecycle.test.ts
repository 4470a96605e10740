import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/home';
import { connectMcp, errorMeta, type McpSession } from '../helpers/mcp';

/**
 * One companion's whole life through the real MCP door: a spawned `evoflux-memory mcp`, the
 * SDK's own client, 13 turns. Extraction runs in the server process after the 3rd and the 13th
 * completed response (rule-based extractor: no model configured), recall cites what it stored,
 * memory_search finds the dialogue, and forget removes it, all confined to the session.
 */
const TURNS: [user: string, assistant: string][] = [
  ['We decided to use PostgreSQL for the Atlas billing database.', 'Noted: PostgreSQL for billing.'],
  ['I prefer concise answers with short code samples.', 'Understood, I will keep answers short.'],
  ['How should we structure the invoice tables for Atlas?', 'One invoices table and one invoice_lines table.'],
  ['What about currency handling?', 'Store amounts as integer minor units with a currency code.'],
  ['Can you sketch the invoices schema?', 'CREATE TABLE invoices (id uuid primary key, total bigint);'],
  ['How do we index invoice lookups by customer?', 'An index on (customer_id, issued_at).'],
  ['What isolation level fits the payment step?', 'Serializable for the payment transaction.'],
  ['We always write migrations in plain SQL files.', 'Plain SQL migrations it is.'],
  ['How do we roll back a failed migration?', 'Each migration ships with a down script.'],
  ['What should the retry policy be for the payment provider?', 'Three retries with exponential backoff.'],
  ['How do we test the invoice totals?', 'Property tests over random invoice lines.'],
  ['Which metrics should billing expose?', 'Invoices issued, payment failures, latency.'],
  ['The API must never expose customer emails in logs.', 'I will make sure emails are redacted.'],
];

function openDb(home: string) {
  return new Database(`${home}/memory.db`, { readonly: true });
}

describe('MCP lifecycle: session, 13 turns, extraction twice, recall, search, forget', () => {
  const home = tempHome('evoflux-mcp-life-');
  let mcp: McpSession;
  let atlas: string;
  let zephyr: string;
  const userMessageIds: string[] = [];
  let zephyrFact: string;

  /** Extraction runs in the server's background; wait (bounded) until it has covered `responses`. */
  async function extractionCovered(responses: number) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const status = await mcp.call('memory_extraction_status', { sessionId: atlas });
      const mine = status.sessions.find((s: { sessionId: string }) => s.sessionId === atlas);
      if (mine && mine.status !== 'processing' && mine.lastResponseCount >= responses) return mine;
      if (mine?.status === 'failed') throw new Error(`extraction failed: ${mine.lastError}`);
      if (Date.now() > deadline) throw new Error(`extraction never covered ${responses}: ${JSON.stringify(mine)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    // One connection started for both projects (the owner's launch flags decide what it reaches).
    mcp = await connectMcp(home.dir, ['--project', 'atlas', '--project', 'zephyr', '--workspace', home.dir]);
    atlas = (
      await mcp.call('memory_create_session', {
        projectId: 'atlas',
        workspace: `${home.dir}/atlas`,
        title: 'Atlas billing',
      })
    ).id;
    zephyr = (await mcp.call('memory_create_session', { projectId: 'zephyr', title: 'Zephyr' })).id;
    zephyrFact = (
      await mcp.call('memory_remember', {
        sessionId: zephyr,
        scope: 'project',
        kind: 'fact',
        text: 'Zephyr billing database backups of PostgreSQL live in Glacier.',
      })
    ).fact.id;
  });
  afterAll(async () => {
    await mcp?.close();
    home.cleanup();
  });

  it('runs 13 turns; extraction runs after the 3rd and the 13th response and stores facts with evidence', async () => {
    for (let i = 0; i < TURNS.length; i++) {
      const [userText, assistantText] = TURNS[i]!;
      const begun = await mcp.call('memory_begin_turn', { sessionId: atlas, userText });
      expect(begun.userMessage.content).toBe(userText);
      expect(begun.context.block).toContain(userText);
      userMessageIds.push(begun.userMessage.id);
      const done = await mcp.call('memory_complete_turn', { sessionId: atlas, assistantText });
      expect(done.completedResponses).toBe(i + 1);

      if (i + 1 === 3) {
        const first = await extractionCovered(3);
        expect(first.lastResponseCount).toBe(3);
        expect(first.factsStored).toBeGreaterThanOrEqual(2);
      }
      if (i + 1 === 12) {
        // Not due between the runs: responses 4..12 leave the cursor at 3.
        const between = await mcp.call('memory_extraction_status', { sessionId: atlas });
        expect(between.sessions[0].lastResponseCount).toBe(3);
      }
    }
    const second = await extractionCovered(13);
    expect(second.lastResponseCount).toBe(13);

    const db = openDb(home.dir);
    try {
      const evidenceOf = (textLike: string) =>
        db
          .prepare(
            `SELECT f.id, f.scope, f.scope_key AS scopeKey, f.origin, e.session_id AS sessionId, e.message_id AS messageId
             FROM memory_facts f JOIN memory_fact_evidence e ON e.fact_seq = f.seq WHERE f.text LIKE ?`,
          )
          .all(textLike) as {
          id: string;
          scope: string;
          scopeKey: string;
          origin: string;
          sessionId: string;
          messageId: string;
        }[];
      // First run (responses 1-3).
      expect(evidenceOf('%PostgreSQL for the Atlas billing%')).toEqual([
        expect.objectContaining({
          scope: 'project',
          scopeKey: 'atlas',
          origin: 'extraction',
          sessionId: atlas,
          messageId: userMessageIds[0],
        }),
      ]);
      expect(evidenceOf('%concise answers%')).toEqual([
        expect.objectContaining({
          scope: 'user',
          origin: 'extraction',
          sessionId: atlas,
          messageId: userMessageIds[1],
        }),
      ]);
      // Second run (responses 4-13).
      expect(evidenceOf('%migrations in plain SQL%')).toEqual([
        expect.objectContaining({
          scope: 'project',
          scopeKey: 'atlas',
          sessionId: atlas,
          messageId: userMessageIds[7],
        }),
      ]);
      expect(evidenceOf('%never expose customer emails%')).toEqual([
        expect.objectContaining({
          scope: 'project',
          scopeKey: 'atlas',
          sessionId: atlas,
          messageId: userMessageIds[12],
        }),
      ]);
      // Questions are not facts.
      expect(evidenceOf('%invoice tables%')).toEqual([]);
    } finally {
      db.close();
    }
    const listed = await mcp.call('memory_list_facts', { sessionId: atlas, limit: 100 });
    const texts = listed.facts.map((f: { text: string }) => f.text);
    expect(texts.some((t: string) => t.includes('PostgreSQL for the Atlas billing'))).toBe(true);
    expect(listed.facts.map((f: { id: string }) => f.id)).not.toContain(zephyrFact);
  });

  it("recall returns cited facts of the session's scopes only, inside the untrusted-data boundary", async () => {
    const recalled = await mcp.call('memory_recall', {
      sessionId: atlas,
      text: 'Which database did we choose for Atlas billing?',
    });
    const postgres = recalled.facts.find((f: { text: string }) => f.text.includes('PostgreSQL for the Atlas billing'));
    expect(postgres).toBeDefined();
    expect(postgres.citation).toMatchObject({ sessionId: atlas, messageId: userMessageIds[0] });
    expect(postgres.citation.ref).toMatch(/^ref:e:/);
    expect(recalled.facts.length).toBeLessThanOrEqual(3);
    expect(recalled.facts.map((f: { id: string }) => f.id)).not.toContain(zephyrFact);
    expect(recalled.block).toContain('<memory_data>');
    expect(recalled.block).toContain(postgres.id);
    expect(recalled.block.trimEnd().endsWith('</system-reminder>')).toBe(true);

    // The text the model reads from the tool is the block itself.
    const raw = await mcp.raw('memory_recall', {
      sessionId: atlas,
      text: 'Which database did we choose for Atlas billing?',
    });
    expect((raw.content[0] as { text: string }).text).toBe(recalled.block);

    // A new turn carries the same recall into its context.
    const turn = await mcp.call('memory_begin_turn', {
      sessionId: atlas,
      userText: 'Remind me which database Atlas billing runs on.',
    });
    expect(turn.context.recall.facts.map((f: { id: string }) => f.id)).toContain(postgres.id);
    expect(turn.context.recall.block).toContain('<memory_data>');
    const beginText = await mcp.raw('memory_begin_turn', {
      sessionId: atlas,
      userText: 'And which one does Zephyr use for billing backups?',
    });
    expect((beginText.content[0] as { text: string }).text).not.toContain('Glacier');
    await mcp.call('memory_complete_turn', { sessionId: atlas, assistantText: 'Atlas billing runs on PostgreSQL.' });
  });

  it('memory_search finds the dialogue of the session, and nothing of another project', async () => {
    const found = await mcp.call('memory_search', { sessionId: atlas, query: 'invoice tables structure' });
    const dialogue = found.results.filter((h: { source: string }) => h.source === 'dialogue');
    expect(dialogue.length).toBeGreaterThan(0);
    expect(dialogue.map((h: { citation: { messageId?: string } }) => h.citation.messageId)).toContain(
      userMessageIds[2],
    );
    const backups = await mcp.call('memory_search', { sessionId: atlas, query: 'Glacier backups PostgreSQL' });
    expect(JSON.stringify(backups)).not.toContain('Glacier');
    const text = await mcp.raw('memory_search', { sessionId: atlas, query: 'invoice tables structure' });
    const rendered = (text.content[0] as { text: string }).text;
    expect(rendered).toMatch(/^Memory search results/);
    // Dialogue hits carry the date the message was written, in the text an agent reads too.
    const first = dialogue[0] as { ref: string; date: string };
    expect(first.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(rendered).toContain(`source=${first.ref} date=${first.date} score=`);
  });

  it('session-wide tools refuse to run without a session', async () => {
    const r = await mcp.raw('memory_extraction_status', {});
    expect(r.isError).toBe(true);
    expect(errorMeta(r)?.field).toBe('sessionId');
    const status = await mcp.call('memory_extraction_status', { sessionId: atlas });
    expect(status.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([atlas]);
  });

  it('malformed turn arguments change nothing', async () => {
    const count = () => {
      const db = openDb(home.dir);
      try {
        return (db.prepare('SELECT count(*) AS n FROM session_messages').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const before = count();
    for (const [tool, args, field] of [
      ['memory_begin_turn', { sessionId: atlas, userText: '   ' }, 'userText'],
      ['memory_begin_turn', { sessionId: atlas, content: 'wrong field name' }, 'userText'],
      ['memory_begin_turn', { sessionId: 'not-a-session', userText: 'hello there' }, 'sessionId'],
      ['memory_complete_turn', { sessionId: atlas, assistantText: '' }, 'assistantText'],
      [
        'memory_complete_turn',
        { sessionId: atlas, assistantText: 'ok', toolRounds: [{ content: 1 }] },
        'toolRounds.0.content',
      ],
    ] as const) {
      const r = await mcp.raw(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(errorMeta(r)?.field, `${tool} ${JSON.stringify(args)}`).toBe(field);
    }
    expect(count()).toBe(before);
  });

  it("keeps the loop checkpoint, compacts the window, and shows the session's scopes", async () => {
    await mcp.call('memory_begin_turn', { sessionId: atlas, userText: 'Summarise where billing stands.' });
    await mcp.call('memory_complete_turn', {
      sessionId: atlas,
      assistantText: 'Schema, migrations and metrics are agreed.',
      toolRounds: [{ content: 'memory_search(billing)', toolOutputs: ['3 results'] }],
      checkpoint: { step: 14, pending: ['payments'] },
    });
    expect(await mcp.call('memory_get_checkpoint', { sessionId: atlas })).toMatchObject({
      checkpoint: { step: 14, pending: ['payments'] },
    });
    const compacted = await mcp.call('memory_compact_context', { sessionId: atlas, keepLastTurns: 2 });
    expect(compacted.compactedMessages).toBeGreaterThan(0);
    expect(compacted.summary.isSummary).toBe(true);
    const next = await mcp.call('memory_begin_turn', { sessionId: atlas, userText: 'What is left to do on billing?' });
    expect(next.context.window[0].isSummary).toBe(true);
    await mcp.call('memory_complete_turn', { sessionId: atlas, assistantText: 'Payments remain.' });
    const scopes = await mcp.call('memory_session_scopes', { sessionId: atlas });
    expect(scopes.visible.map((v: { scope: string }) => v.scope)).toEqual(['session', 'workspace', 'project', 'user']);
    expect(scopes.visible.find((v: { scope: string }) => v.scope === 'project').key).toBe('atlas');
  });

  it('runs Dream on request: the finished session goes into the wiki once', async () => {
    const before = await mcp.call('memory_dream_status', {});
    expect(before.running).toBe(false);
    expect(before.pendingSessions).toBeGreaterThanOrEqual(1);
    const run = await mcp.call('memory_run_dream', { drain: true });
    expect(run.status).toBe('completed');
    expect(run.sessionsProcessed).toBe(before.pendingSessions);
    expect(run.failed).toBe(0);
    expect(run.pagesWritten).toBeGreaterThan(0);
    const again = await mcp.call('memory_run_dream', {});
    expect(again.sessionsProcessed).toBe(0);
    const after = await mcp.call('memory_dream_status', {});
    expect(after.pendingSessions).toBe(0);
    expect(after.lastRuns.length).toBeGreaterThan(0);
  });

  it("forget removes a fact from listing and recall; another project's fact cannot be forgotten from here", async () => {
    const listed = await mcp.call('memory_list_facts', { sessionId: atlas, text: 'PostgreSQL' });
    const postgres = listed.facts.find((f: { text: string }) => f.text.includes('Atlas billing'));
    const refused = await mcp.raw('memory_forget_fact', { sessionId: atlas, factId: zephyrFact });
    expect(errorMeta(refused)?.code).toBe('not_found');

    const forgotten = await mcp.call('memory_forget_fact', { sessionId: atlas, factId: postgres.id });
    expect(forgotten.fact.id).toBe(postgres.id);
    const after = await mcp.call('memory_recall', {
      sessionId: atlas,
      text: 'Which database did we choose for Atlas billing?',
    });
    expect(after.facts.map((f: { id: string }) => f.id)).not.toContain(postgres.id);
    expect((await mcp.call('memory_list_facts', { sessionId: atlas, text: 'PostgreSQL' })).facts).toEqual([]);
    expect(
      (await mcp.call('memory_list_facts', { sessionId: zephyr })).facts.map((f: { id: string }) => f.id),
    ).toContain(zephyrFact);
  });
});
