import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { scopeQueries } from '../queries/misc';
import type { Scope } from '../../../shared/domain';
import { fmtDate, plural } from '../format';

const LIMIT = 100;

/**
 * Picks an existing project, workspace, folder or session (with its fact count) instead of
 * typing a key exactly. Above a hundred, a filter box narrows the list on the engine side.
 */
export function ContextSelect({
  scope,
  value,
  onChange,
  label,
  allowAny = true,
  countLabel = 'fact',
  id,
}: {
  scope: Exclude<Scope, 'user'>;
  value: string | undefined;
  onChange(key: string | undefined): void;
  label: string;
  /** Offer "any" (no key) as the first choice. */
  allowAny?: boolean;
  countLabel?: string;
  id?: string;
}) {
  const [query, setQuery] = useState('');
  const filterId = useId();
  const list = useQuery(scopeQueries.list({ scope, query: query.trim() || undefined, limit: LIMIT }));
  const contexts = list.data?.contexts ?? [];
  const total = list.data?.totals[scope] ?? 0;
  const many = total > LIMIT || query !== '';
  const known = value === undefined || contexts.some((c) => c.key === value);
  return (
    <span className="context-select">
      {many ? (
        <input
          id={filterId}
          type="search"
          className="context-filter"
          placeholder={`Filter ${total.toLocaleString('en-US')} ${scope}s`}
          aria-label={`Filter the ${scope} list`}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      ) : null}
      <select
        id={id}
        aria-label={label}
        value={value ?? ''}
        disabled={list.isPending}
        onChange={(e) => onChange(e.target.value || undefined)}
        data-testid={`context-${scope}`}
      >
        {allowAny ? <option value="">{list.isPending ? 'loading…' : `any ${scope}`}</option> : null}
        {!allowAny && value === undefined ? <option value="">choose a {scope}…</option> : null}
        {!known && value !== undefined ? <option value={value}>{value}</option> : null}
        {contexts.map((c) => (
          <option key={c.key} value={c.key}>
            {scope === 'session' ? `${c.label} · ${fmtDate(c.lastActiveAt)}` : c.label} ({plural(c.facts, countLabel)}
            {scope !== 'session' ? `, ${plural(c.sessions, 'session')}` : ''})
          </option>
        ))}
      </select>
    </span>
  );
}
