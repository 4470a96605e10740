import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import type { DoorCommand } from './framework';
import { dispatch, parseInput } from '../commands/dispatch';
import { OWNER } from '../commands/principal';
import { findSecret } from '../memory/secrets';
import { FACT_BATCH_MAX } from '../../shared/commands/facts';
import { groupDigits } from '../../shared/locale-free';
import { isCommandError, invalid } from '../../shared/errors';

type Batch = { sessionId: string; facts: Record<string, unknown>[] };

function readLines(file: string): { lines: string[]; source: string } {
  const source = file === '-' ? 'stdin' : file;
  try {
    return { lines: readFileSync(file === '-' ? 0 : file, 'utf8').split('\n'), source };
  } catch (e) {
    throw invalid('file', `cannot read ${source}: ${(e as Error).message}`);
  }
}

/** Every non-empty line as one fact object, with its line number for errors. */
function parseLines(lines: readonly string[], source: string): { fact: Record<string, unknown>; line: number }[] {
  const out: { fact: Record<string, unknown>; line: number }[] = [];
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    let fact: unknown;
    try {
      fact = JSON.parse(text);
    } catch (e) {
      throw invalid('file', `line ${i + 1} of ${source} is not JSON (${(e as Error).message})`);
    }
    if (typeof fact !== 'object' || fact === null || Array.isArray(fact)) {
      throw invalid('file', `line ${i + 1} of ${source} is not a JSON object`);
    }
    out.push({ fact: fact as Record<string, unknown>, line: i + 1 });
  });
  return out;
}

/**
 * Checks a batch as facts.addBatch will (the contract's schema, the secret rule) before anything
 * is written, so a bad line anywhere in the input stores nothing; errors name the line.
 */
function checkBatch(batch: Batch, lineOf: readonly number[], source: string): void {
  const where = (field: string | undefined) => {
    const m = /^facts\.(\d+)\.?(.*)$/.exec(field ?? '');
    return m ? `line ${lineOf[Number(m[1])]} of ${source}${m[2] ? `: ${m[2]}` : ''}` : source;
  };
  try {
    const parsed = parseInput('facts.addBatch', batch);
    parsed.facts.forEach((f, i) => {
      const secret = findSecret(f.text);
      if (secret) throw invalid(`facts.${i}.text`, `looks like a secret (${secret.kind}); secrets are never stored`);
    });
  } catch (e) {
    if (!isCommandError(e) || e.field === 'sessionId') throw e;
    const message = e.message.replace(/^facts\.\d+\.?[^:]*: /, '');
    throw invalid('file', `${where(e.field)}: ${message}`);
  }
}

/**
 * `facts import`: facts as JSON Lines (one object a line, the fields of facts add) from stdin or a
 * file, stored through facts.addBatch in batches of 1,000, one transaction each.
 */
export const factsImport: DoorCommand = {
  path: ['facts', 'import'],
  summary: `Record facts read as JSON Lines from stdin (or --file), one {"text","kind","scope","confidence","messageId"} object a line, in batches of ${groupDigits(FACT_BATCH_MAX)} (one transaction each, through facts add-batch). Every line is checked before anything is stored.`,
  fields: [{ command: 'facts.addBatch', field: 'sessionId' }],
  options: () => [new Option('--file <path>', 'Read the JSON Lines from this file (- for stdin, the default).')],
  run: async (ctx, input, options) => {
    const sessionId = String(input.sessionId);
    const { lines, source } = readLines(typeof options.file === 'string' ? options.file : '-');
    const facts = parseLines(lines, source);
    if (facts.length === 0) throw invalid('file', `${source} holds no facts (one JSON object a line)`);
    const batches: { batch: Batch; lines: number[] }[] = [];
    for (let at = 0; at < facts.length; at += FACT_BATCH_MAX) {
      const part = facts.slice(at, at + FACT_BATCH_MAX);
      batches.push({ batch: { sessionId, facts: part.map((p) => p.fact) }, lines: part.map((p) => p.line) });
    }
    for (const b of batches) checkBatch(b.batch, b.lines, source);
    const totals = { facts: facts.length, batches: batches.length, created: 0, reinforced: 0, unchanged: 0 };
    for (const { batch } of batches) {
      const r = await dispatch(ctx.engine(), 'facts.addBatch', batch, OWNER);
      totals.created += r.created;
      totals.reinforced += r.reinforced;
      totals.unchanged += r.unchanged;
    }
    const text =
      `stored ${totals.facts} facts in ${totals.batches} batch(es): ${totals.created} new, ` +
      `${totals.reinforced} reinforced, ${totals.unchanged} unchanged`;
    return { data: totals, text };
  },
};
