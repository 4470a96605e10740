import type { EngineBase } from '../engine-parts';
import { refreshSettings } from '../settings-live';
import type { RecallResult } from './recall';

export const RECALL_OFF_REASON = 'memory recall is switched off (recall.enabled in settings.yaml)';

/**
 * The memory switch: with recall.enabled false, automatic recall (memory.recall and
 * turns.begin) injects nothing and says why. memory_search, an explicit lookup, still answers.
 */
export function recallSwitchedOff(engine: Pick<EngineBase, 'paths' | 'settings'>): RecallResult | null {
  refreshSettings(engine);
  if (engine.settings.recall.enabled) return null;
  return { facts: [], block: null, abstained: true, reason: RECALL_OFF_REASON };
}
