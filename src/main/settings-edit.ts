import { openSettingsDocument } from './settings-document';
import type { Engine } from './engine';
import { FILE_KEY, loadSettings, type Settings } from './settings';
import { adoptWrittenSettings, refreshSettings } from './settings-live';
import { writeFileAtomically } from './wiki/atomic';
import { parseSchedule } from './dream/cron';
import { CommandError } from '../shared/errors';
import type { EditableSettings } from '../shared/commands/settings';

export interface SettingsView {
  recall: { enabled: boolean };
  extraction: { enabled: boolean; firstAfter: number; every: number };
  llm: {
    baseUrl: string;
    model: string;
    apiKey: 'none' | 'settings' | 'environment';
    timeoutMs: number;
    maxRetries: number;
  };
  dream: { enabled: boolean; schedule: string; model: string };
}

/** The editable settings as the window shows them; the API key is reported, never returned. */
export function settingsView(s: Settings, env: NodeJS.ProcessEnv = process.env): SettingsView {
  return {
    recall: { enabled: s.recall.enabled },
    extraction: { enabled: s.extraction.enabled, firstAfter: s.extraction.firstAfter, every: s.extraction.every },
    llm: {
      baseUrl: s.llm.baseUrl,
      model: s.llm.model,
      apiKey: s.llm.apiKey ? 'settings' : env.EVOFLUX_LLM_API_KEY ? 'environment' : 'none',
      timeoutMs: s.llm.timeoutMs,
      maxRetries: s.llm.maxRetries,
    },
    dream: { enabled: s.dream.enabled, schedule: s.dream.schedule, model: s.dream.model },
  };
}

/**
 * Saves the given values into settings.yaml (validated already by the contract; the cron
 * expression here), keeping the file's comments and every other key, atomically; then the
 * running engine adopts them and Dream's scheduler reloads.
 */
export async function saveSettings(engine: Engine, values: EditableSettings): Promise<SettingsView> {
  if (values.dream?.schedule !== undefined) parseSchedule(values.dream.schedule, 'values.dream.schedule').stop();
  refreshSettings(engine);
  const doc = openSettingsDocument(engine.paths.settings);
  for (const [section, entries] of Object.entries(values)) {
    for (const [key, value] of Object.entries(entries ?? {})) {
      if (value !== undefined) doc.setIn([section, key], value);
    }
  }
  await writeFileAtomically(engine.paths.settings, doc.toString());
  const loaded = loadSettings(engine.paths.settings);
  const unreadable = loaded.problems.find((p) => p.key === FILE_KEY);
  if (unreadable) throw new CommandError('internal', `settings.yaml did not read back: ${unreadable.reason}`);
  adoptWrittenSettings(engine, loaded.settings);
  if (values.dream?.enabled !== undefined || values.dream?.schedule !== undefined) {
    // Same values again: setConfig reloads (and starts, where it runs) the scheduler.
    await engine.dream.setConfig({ enabled: loaded.settings.dream.enabled, schedule: loaded.settings.dream.schedule });
  }
  return settingsView(engine.settings);
}
