import type { Engine } from '../engine';
import type { Handlers } from './types';
import { agentSessionCommands } from '../../shared/commands/agent-sessions';
import { writeTx } from '../store/db';
import { getSession } from '../store/sessions';
import { recentSessions, recentSessionsIn, sessionActivity, type SessionPlaces } from '../store/session-activity';
import { forgetSession, type SessionForgetReport } from '../memory/forget';
import { ownerOf, resolveScopes, scopesFor } from '../memory/scope';
import { listVisibleFacts } from '../store/visible-facts';
import { afterSessionForget, onlyPages, pagesVisibleTo } from './forget-wiki';
import { checkConfirmToken, confirmTokenFor } from './forget-confirm';
import { canReachSession, isAgent, reaches, type Principal } from './principal';
import { notFound } from '../../shared/errors';
import type { ScopeRef, SessionRecord } from '../../shared/schemas';

/** The kept facts as the caller may see them: supporters it cannot reach are counted, not named. */
function confineKept(engine: Engine, principal: Principal, plan: SessionForgetReport) {
  return plan.kept.map((k) => {
    const supportedBy = k.supportedBy.filter((id) => canReachSession(engine.db, principal, id));
    return { ...k, supportedBy, otherSupporters: Math.max(0, k.reinforcementAfter - supportedBy.length) };
  });
}

/** Places a session's context spans: its lead's project, workspace and folder, and the lead's team. */
function placesOfSession(engine: Engine, sessionId: string): SessionPlaces {
  const session = getSession(engine.db, sessionId);
  if (!session) throw notFound('session', sessionId, 'sessionId');
  const owner = ownerOf(engine.db, session);
  return {
    projects: owner.projectId ? [owner.projectId] : [],
    workspaces: owner.workspace ? [owner.workspace] : [],
    folders: owner.folderId ? [owner.folderId] : [],
    ids: [owner.id],
  };
}

/** Sessions for an activity answer: the caller's reach, within the session's context when one is named. */
function activitySessions(engine: Engine, principal: Principal, sessionId: string | undefined, limit: number) {
  const scan = limit * 4;
  let candidates: SessionRecord[];
  if (sessionId !== undefined) candidates = recentSessionsIn(engine.db, placesOfSession(engine, sessionId), scan);
  else if (!isAgent(principal)) candidates = recentSessions(engine.db, limit);
  else {
    const c = principal.context;
    candidates = recentSessionsIn(
      engine.db,
      { projects: c.projects, workspaces: c.workspaces, folders: c.folders, ids: [...principal.created] },
      scan,
    );
  }
  const reachable = isAgent(principal) ? candidates.filter((s) => reaches(engine.db, principal, s)) : candidates;
  return reachable.slice(0, limit);
}

/** The scopes whose recent facts an activity answer lists. */
function activityScopes(engine: Engine, sessionId: string | undefined, sessions: SessionRecord[]): ScopeRef[] {
  if (sessionId !== undefined) return resolveScopes(engine.db, sessionId).visible;
  const seen = new Map<string, ScopeRef>();
  for (const s of sessions) for (const v of scopesFor(engine.db, s).visible) seen.set(`${v.scope}:${v.key}`, v);
  return [...seen.values()];
}

export const agentSessionHandlers: Handlers<typeof agentSessionCommands> = {
  'memory.forgetSession': async (engine, { sessionId, confirm }, principal) => {
    const dryRun = confirm === undefined;
    // The wiki pages are judged as the forgotten session sees them, before it goes.
    const seen = pagesVisibleTo(engine, resolveScopes(engine.db, sessionId).visible);
    const now = engine.clock.now();
    // Confirming checks the token against the plan as it is now, in the transaction that forgets.
    const plan = dryRun
      ? forgetSession(engine.db, sessionId, { dryRun: true, now })
      : writeTx(engine.db, () => {
          checkConfirmToken(engine, sessionId, confirm, forgetSession(engine.db, sessionId, { dryRun: true, now }));
          return forgetSession(engine.db, sessionId, { dryRun: false, now });
        });
    const wiki = await afterSessionForget(engine, plan, dryRun);
    const token = dryRun ? confirmTokenFor(engine, sessionId, plan) : null;
    return {
      ...plan,
      dryRun,
      confirmToken: token?.token ?? null,
      confirmBy: token?.confirmBy ?? null,
      kept: confineKept(engine, principal, plan),
      wiki: onlyPages(wiki, seen),
    };
  },

  'memory.activity': (engine, { sessionId, limit }, principal) => {
    const sessions = activitySessions(engine, principal, sessionId, limit);
    const facts = listVisibleFacts(engine.db, activityScopes(engine, sessionId, sessions), {
      sort: 'recency',
      limit,
    }).facts;
    return {
      sessions: sessions.map((s) => {
        const { messageCount, lastMessage } = sessionActivity(engine.db, s.id);
        const preview = lastMessage && {
          role: lastMessage.role,
          at: lastMessage.at,
          preview: lastMessage.content.replace(/\s+/g, ' ').trim().slice(0, 200),
        };
        return { ...s, messageCount, lastMessage: preview };
      }),
      facts,
    };
  },
};
