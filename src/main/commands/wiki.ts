import path from 'node:path';
import type { Handlers } from './types';
import { wikiCommands } from '../../shared/commands/wiki';
import { wikiTree } from '../wiki/tree';
import { exportFacts } from '../wiki/export';
import { noteConsumed, pendingNotes } from '../dream/queue';
import { invalid } from '../../shared/errors';

export const wikiHandlers: Handlers<typeof wikiCommands> = {
  'wiki.tree': (engine, { unprocessedOnly }) => {
    const pending = unprocessedOnly ? new Set(pendingNotes(engine.db, engine.wiki).map((n) => n.name)) : null;
    return wikiTree(engine.wiki, pending ? (name) => pending.has(name) : undefined);
  },

  'wiki.read': (engine, input) => {
    const page = engine.wiki.read(input.path);
    return { path: page.path, content: page.content, body: page.body, meta: page.meta, version: page.version };
  },

  'wiki.write': (engine, input) =>
    engine.wiki.write(input.path, input.content, { expectedVersion: input.expectedVersion }),

  'wiki.delete': (engine, input) =>
    engine.wiki.delete(input.path, 'path', {
      noteConsumed: (name, content) => noteConsumed(engine.db, name, content),
    }),

  'wiki.notes.append': (engine, input) => engine.wiki.appendNote(input.content),

  'wiki.lint': (engine) => engine.dream.lint(),

  'wiki.export': (engine, input) => {
    const dir = input.dir ? path.resolve(input.dir) : path.join(engine.paths.root, 'wiki-export');
    const wiki = path.resolve(engine.paths.wiki);
    // The export is a snapshot beside the wiki; written into it, it would bypass the wiki lock and
    // could replace INDEX.md.
    if (dir === wiki || dir.startsWith(wiki + path.sep)) throw invalid('dir', 'must be outside the wiki folder');
    return exportFacts(engine.db, dir, engine.clock.now());
  },
};
