import type { Output } from '../api/client';
import { buildHash } from '../router';

type Finding = Output<'wiki.lint'>['findings'][number];

/** Every line lint found still mentioning a forgotten session or fact, linked to its page. */
export function ForgottenMentions({ findings }: { findings: Finding[] }) {
  const mentions = findings.filter((f) => f.category === 'forgotten_mention');
  if (mentions.length === 0) return null;
  return (
    <div data-testid="forgotten-mentions" style={{ marginTop: 8 }}>
      <b>Mentions of forgotten sessions and facts ({mentions.length})</b>
      <ul className="small" style={{ paddingLeft: 18, margin: '6px 0 0' }}>
        {mentions.map((f) => (
          <li key={`${f.path}:${f.line ?? 0}:${f.message}`}>
            <a className="mono" href={buildHash('wiki', null, { path: f.path })}>
              {f.path}
              {f.line ? `:${f.line}` : ''}
            </a>{' '}
            {f.message.replace(/^line \d+ /, '')}
          </li>
        ))}
      </ul>
    </div>
  );
}
