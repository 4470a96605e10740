import type { Db } from './store/db';
import type { HomePaths } from './home';
import type { Settings, SettingsProblem } from './settings';
import type { Log } from './log';
import type { Clock } from '../shared/clock';
import type { EventHub } from './events';
import type { RequestGate } from './request-gate';

/**
 * What every engine service is built on: the home, the writer connection, the clock, settings,
 * the event hub and the log. Services take the parts they use (a `Pick` of this, plus the one or
 * two sibling services some need) instead of the whole Engine, so engine.ts can build them
 * without them depending on it.
 */
export interface EngineBase {
  paths: HomePaths;
  db: Db;
  clock: Clock;
  settings: Settings;
  events: EventHub;
  /** `<home>/logs/evoflux.log`: levels, rotation, the process kind and pid on every line. */
  log: Log;
  /** What was wrong in settings.yaml when the engine opened (each bad key fell back to its default). */
  settingsProblems: SettingsProblem[];
  /** Requests the doors are serving now: main-thread background work waits for a gap between them. */
  requests: RequestGate;
  /** Registers work to finish (or give back) before the database closes; last registered runs first. */
  onClose(fn: () => Promise<void> | void): void;
}
