import type { Handlers } from './types';
import { settingsCommands } from '../../shared/commands/settings';
import { FILE_KEY, loadSettings, type SettingsProblem } from '../settings';
import { refreshSettings } from '../settings-live';
import { saveSettings, settingsView } from '../settings-edit';
import { testConnection } from '../llm/test-connection';

/** A connection test never waits longer than this, whatever llm.timeoutMs says. */
const TEST_TIMEOUT_MS = 10_000;

/** A problem with the whole file (unreadable YAML, not a mapping) apart from those of single keys. */
function fileProblems(problems: SettingsProblem[]): { fileError: string | null; problems: SettingsProblem[] } {
  const whole = problems.find((p) => p.key === FILE_KEY);
  return { fileError: whole?.reason ?? null, problems: problems.filter((p) => p.key !== FILE_KEY) };
}

export const settingsHandlers: Handlers<typeof settingsCommands> = {
  'settings.get': (engine) => {
    refreshSettings(engine);
    return {
      values: settingsView(engine.settings),
      file: engine.paths.settings,
      home: engine.paths.root,
      ...fileProblems(loadSettings(engine.paths.settings).problems),
    };
  },
  'settings.set': async (engine, { values }) => ({ values: await saveSettings(engine, values) }),
  'settings.testConnection': (engine, input) => {
    refreshSettings(engine);
    const llm = engine.settings.llm;
    return testConnection({
      baseUrl: input.baseUrl ?? llm.baseUrl,
      model: input.model ?? llm.model,
      apiKey: input.apiKey || llm.apiKey || process.env.EVOFLUX_LLM_API_KEY || '',
      timeoutMs: Math.min(llm.timeoutMs, TEST_TIMEOUT_MS),
    });
  },
};
