import type { SettingsProblemRecord } from '../../../shared/schemas';

/**
 * settings.yaml keys the engine could not use as written: each fell back to its default (or was
 * ignored), so what the user configured is not what runs until the file is fixed.
 */
export function SettingsProblems({ problems }: { problems: SettingsProblemRecord[] | undefined }) {
  if (!problems || problems.length === 0) return null;
  return (
    <div className="notice warn" role="alert" data-testid="settings-problems">
      <strong>
        {problems.length === 1 ? 'A setting' : `${problems.length} settings`} in {problems[0]!.file} could not be used
      </strong>{' '}
      — the default applies until the file is fixed:
      <ul>
        {problems.map((p) => (
          <li key={p.key}>
            <code>{p.key}</code> {p.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}
