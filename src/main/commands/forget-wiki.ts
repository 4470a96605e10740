import type { Engine } from '../engine';
import { allPages, planWikiForget, type ForgetTargets } from '../dream/forget-pages';
import { reportOf } from '../memory/forget-follow-ups';
import { pageVisibleTo } from '../wiki/page-scopes';
import type { SessionForgetReport } from '../memory/forget';
import type { ForgetWikiReport, ScopeRef } from '../../shared/schemas';

/**
 * The wiki part of a forget's answer. A dry run plans the clean-up without writing; a real forget
 * (already committed, its clean-up queued in the same transaction) runs the clean-up now and
 * reports what it did, or, when the wiki stayed locked, what it will do once it can.
 */
export async function forgetWikiReport(
  engine: Engine,
  targets: ForgetTargets & { dryRun: boolean },
): Promise<ForgetWikiReport> {
  if (targets.dryRun) return reportOf(planWikiForget(engine.wiki, targets));
  try {
    const plan = await engine.forgetFollowUps.run(targets.factTexts);
    return plan ? reportOf(plan) : { pages: [], mentions: [], pending: false };
  } catch {
    return reportOf(planWikiForget(engine.wiki, targets), true);
  }
}

/**
 * After a session's forget (or its dry run): tells the views and the index what went, then
 * cleans or plans the wiki pages that cited it. The owner's and the agent's forget share it.
 */
export async function afterSessionForget(
  engine: Engine,
  plan: SessionForgetReport,
  dryRun: boolean,
): Promise<ForgetWikiReport> {
  if (!dryRun) {
    engine.events.emit('sessions-forgotten', { sessionIds: plan.sessionIds });
    engine.events.emit('facts-changed', { sessionIds: plan.sessionIds });
  }
  return forgetWikiReport(engine, {
    dryRun,
    sessionIds: plan.sessionIds,
    factIds: plan.deleted.map((f) => f.id),
    factTexts: plan.deleted.map((f) => f.text),
  });
}

/** The pages a session could find with memory_search: an agent's report names only those. */
export function pagesVisibleTo(engine: Engine, visible: readonly ScopeRef[]): Set<string> {
  const out = new Set<string>();
  for (const rel of allPages(engine.wiki)) {
    try {
      const summary = engine.wiki.summary(rel);
      if (summary && pageVisibleTo(summary.meta.scopes, visible)) out.add(rel);
    } catch {
      // Unreadable pages are nobody's to see.
    }
  }
  return out;
}

export const onlyPages = (report: ForgetWikiReport, paths: ReadonlySet<string>): ForgetWikiReport => ({
  pages: report.pages.filter((p) => paths.has(p.path)),
  mentions: report.mentions.filter((m) => paths.has(m.path)),
  pending: report.pending,
});
