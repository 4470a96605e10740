import { parseDocument } from 'yaml';

/**
 * USER.md is YAML, not Markdown: the durable profile agents get as data. It is shown as what it
 * is: the explanation its comments give, then each section with its entries.
 */
const humanize = (key: string) => {
  const words = key.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined || value === '') return <span className="muted">(none yet)</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="muted">(none yet)</span>;
    return (
      <ul>
        {value.map((v, i) => (
          <li key={i}>
            <Value value={v} />
          </li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return <span className="muted">(none yet)</span>;
    return (
      <dl className="profile-map">
        {entries.map(([k, v]) => (
          <div key={k} className="profile-pair">
            <dt>{humanize(k)}</dt>
            <dd>
              <Value value={v} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return <span>{String(value)}</span>;
}

export function leadingComment(text: string): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*#\s?(.*)$/.exec(line);
    if (!m) break;
    lines.push(m[1]!);
  }
  return lines.join(' ').trim();
}

export function UserProfile({ content }: { content: string }) {
  const doc = parseDocument(content);
  const intro = leadingComment(content);
  if (doc.errors.length) {
    return (
      <div className="profile" data-testid="user-profile">
        <p className="error-text" role="alert">
          USER.md is not valid YAML ({doc.errors[0]!.message.split('\n')[0]}); agents get it as text. Edit it to fix.
        </p>
        <pre className="mono">{content}</pre>
      </div>
    );
  }
  const data = doc.toJS() as unknown;
  const sections =
    data && typeof data === 'object' && !Array.isArray(data) ? Object.entries(data as Record<string, unknown>) : [];
  return (
    <div className="profile" data-testid="user-profile">
      {intro ? <p className="muted">{intro}</p> : null}
      {sections.length === 0 ? <p className="muted">The profile is empty.</p> : null}
      {sections.map(([key, value]) => (
        <section key={key} className="profile-section" aria-label={humanize(key)}>
          <h3>{humanize(key)}</h3>
          <Value value={value} />
        </section>
      ))}
    </div>
  );
}
