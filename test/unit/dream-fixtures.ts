import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestEngine } from '../helpers/home';
import type { Engine } from '../../src/main/engine';
import { DreamService } from '../../src/main/dream/service';
import type { Consolidator } from '../../src/main/dream/work';
import type { Settings } from '../../src/main/settings';

/** A top-level session with a user and an assistant message, and optional facts. */
export async function sessionWith(
  t: TestEngine,
  opts: {
    title?: string;
    projectId?: string;
    agentName?: string;
    messages?: string[];
    facts?: {
      text: string;
      scope?: 'user' | 'project' | 'session';
      kind?: 'preference' | 'decision' | 'fact' | 'convention';
    }[];
  } = {},
) {
  const s = await t.run('sessions.create', {
    title: opts.title,
    projectId: opts.projectId ?? 'acme',
    agentName: opts.agentName,
  });
  const msgs = [];
  for (const [i, content] of (opts.messages ?? ['hello there', 'hi']).entries()) {
    t.clock.advance(1000);
    msgs.push(await t.run('messages.add', { sessionId: s.id, role: i % 2 === 0 ? 'user' : 'assistant', content }));
  }
  for (const f of opts.facts ?? []) {
    await t.run('facts.add', {
      sessionId: s.id,
      messageId: msgs[0]?.id,
      text: f.text,
      scope: f.scope ?? 'project',
      kind: f.kind ?? 'decision',
    });
  }
  return { session: s, messages: msgs };
}

/** A Dream service on the engine's pieces with no real timers, for tests that tick by hand. */
export function manualDream(
  engine: Engine,
  options: { consolidator?: () => Consolidator; dream?: Partial<Settings['dream']> } = {},
): DreamService {
  Object.assign(engine.settings.dream, options.dream ?? {});
  return new DreamService({
    db: engine.db,
    wiki: engine.wiki,
    clock: engine.clock,
    paths: engine.paths,
    settings: engine.settings,
    timers: null,
    consolidator: options.consolidator,
  });
}

/** Every page file in the wiki, relative path -> content. */
export function wikiFiles(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(path.join(dir, d.name), r);
      else out[r] = readFileSync(path.join(dir, d.name), 'utf8');
    }
  };
  walk(root, '');
  return out;
}
