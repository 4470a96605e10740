import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Engine } from '../engine';
import type { SessionForgetReport } from '../memory/forget';
import { CommandError, invalid } from '../../shared/errors';
import { ensureHttpToken } from '../api/http-token';

/** How long a dry run's token is accepted. */
export const CONFIRM_TTL_MS = 10 * 60_000;

/**
 * The key is derived from the home's private token file, so a dry run in one process (the CLI)
 * can be confirmed in another (an MCP server) on the same home, and by no one who cannot read
 * that file.
 */
const secrets = new WeakMap<Engine, Buffer>();
const secretOf = (engine: Engine) => {
  let secret = secrets.get(engine);
  if (!secret) {
    const token = ensureHttpToken(engine.paths.httpToken);
    secrets.set(engine, (secret = createHmac('sha256', token).update('evoflux forget-session confirm').digest()));
  }
  return secret;
};

/** Everything a forget would change; a different plan is a different token. */
function planText(plan: SessionForgetReport): string {
  return JSON.stringify([
    plan.sessionIds,
    plan.deleted.map((f) => f.id),
    plan.kept.map((f) => [f.id, f.reinforcementAfter, f.handedToLead]),
    plan.evidenceRemoved,
    plan.messagesRemoved,
  ]);
}

function mac(engine: Engine, sessionId: string, confirmBy: number, plan: SessionForgetReport): string {
  return createHmac('sha256', secretOf(engine))
    .update(`${sessionId}\n${confirmBy}\n${planText(plan)}`)
    .digest('base64url');
}

/** The token a dry run hands out: when it expires, and a MAC over the session and its plan. */
export function confirmTokenFor(
  engine: Engine,
  sessionId: string,
  plan: SessionForgetReport,
): { token: string; confirmBy: number } {
  const confirmBy = engine.clock.now() + CONFIRM_TTL_MS;
  return { token: `${confirmBy.toString(36)}.${mac(engine, sessionId, confirmBy, plan)}`, confirmBy };
}

/**
 * Accepts the token only for the plan it was made for, before it expires. A plan that changed
 * since (a new message, another session now supporting a fact) is a conflict: the caller must
 * look again before anything goes.
 */
export function checkConfirmToken(engine: Engine, sessionId: string, token: string, plan: SessionForgetReport): void {
  const [stamp, given] = token.split('.', 2);
  const confirmBy = parseInt(stamp ?? '', 36);
  if (!given || !Number.isSafeInteger(confirmBy)) {
    throw invalid('confirm', 'is not a confirmToken from a dry run of memory.forgetSession');
  }
  if (engine.clock.now() > confirmBy) throw invalid('confirm', 'has expired; run the dry run again');
  const expected = Buffer.from(mac(engine, sessionId, confirmBy, plan));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new CommandError(
      'conflict',
      'confirm: what this forget would remove changed since the dry run (or the token is not for this session); run the dry run again and check it',
      'confirm',
    );
  }
}
