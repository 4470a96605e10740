import type { Handlers } from './types';
import { agentWikiCommands } from '../../shared/commands/agent-wiki';
import { notFound } from '../../shared/errors';
import { validateWikiPath } from '../wiki/paths';
import { pageTitle } from '../wiki/service';
import { isReadablePagePath, pageFilterFor, readablePagePaths } from './agent-view';

export const agentWikiHandlers: Handlers<typeof agentWikiCommands> = {
  'memory.wiki.list': (engine, { sessionId }, principal) => {
    const visible = pageFilterFor(engine, principal, sessionId);
    const pages = [];
    for (const path of readablePagePaths(engine)) {
      let summary;
      try {
        summary = engine.wiki.summary(path);
      } catch {
        continue; // A page that cannot be read safely (a link out of the wiki) is nobody's to list.
      }
      if (!summary || !visible(summary.meta.scopes)) continue;
      const { description, updated, tags } = summary.meta;
      pages.push({ path, title: summary.title, description, updated, tags });
    }
    return { pages };
  },

  'memory.wiki.read': (engine, { sessionId, path }, principal) => {
    const rel = validateWikiPath(path, 'path').rel;
    // Outside the readable pages, or confined to scopes the caller cannot see: the same answer as a missing page.
    if (!isReadablePagePath(rel)) throw notFound('wiki page', rel, 'path');
    const page = engine.wiki.read(rel);
    if (!pageFilterFor(engine, principal, sessionId)(page.meta.scopes)) throw notFound('wiki page', rel, 'path');
    return {
      path: page.path,
      title: pageTitle(page.body),
      content: page.content,
      body: page.body,
      meta: page.meta,
      version: page.version,
    };
  },
};
