import type { Handlers } from './types';
import { extractionCommands } from '../../shared/commands/extraction';
import { getCursor } from '../store/extraction-states';
import { extractionStatus } from '../memory/extraction/status';
import { CommandError, notFound } from '../../shared/errors';
import { getSession } from '../store/sessions';
import type { RunResult } from '../memory/extraction/run';

/** A live lease elsewhere is a clear "busy", not a silent no-op. */
function refusedAsError(r: RunResult): RunResult {
  if (r.refusal?.refused === 'lease-held') {
    const until = r.refusal.leaseExpiresAt ? new Date(r.refusal.leaseExpiresAt).toISOString() : 'unknown';
    throw new CommandError(
      'busy',
      `extraction for session ${r.sessionId} is already running (lease held by ${r.refusal.leaseOwner} until ${until})`,
      'sessionId',
    );
  }
  return r;
}

export const extractionHandlers: Handlers<typeof extractionCommands> = {
  'extraction.status': (engine, { sessionId, limit }) => {
    if (sessionId && !getSession(engine.db, sessionId)) throw notFound('session', sessionId, 'sessionId');
    const sessions = extractionStatus(
      engine.db,
      { sessionId, limit, now: engine.clock.now(), cadence: engine.settings.extraction },
      (id) => getCursor(engine.db, id),
    );
    return { extractor: engine.extraction.extractor.name, sessions };
  },
  'extraction.run': async (engine, { sessionId }) => refusedAsError(await engine.extraction.runNow(sessionId)),
  'extraction.retry': async (engine, { sessionId }) => refusedAsError(await engine.extraction.retry(sessionId)),
  'import.legacy': (engine, input) =>
    engine.legacyImport.run({
      ...input,
      onProgress: (done, total) =>
        engine.events.emit('progress', { job: 'legacy import', unit: 'sessions', done, total }),
    }),
};
