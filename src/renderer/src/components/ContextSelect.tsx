import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { scopeQueries } from '../queries/misc';
import type { Scope } from '../../../shared/domain';
import { fmtDate, plural } from '../format';
import type { Output } from '../api/client';

const LIMIT = 100;

type Context = Output<'scopes.list'>['contexts'][number];

/** "billing (2 facts, 3 sessions)"; a session by its title and day. */
const optionLabel = (c: Context, countLabel: string) =>
  c.scope === 'session'
    ? `${c.label} · ${fmtDate(c.lastActiveAt)} (${plural(c.facts, countLabel)})`
    : `${c.label} (${plural(c.facts, countLabel)}, ${plural(c.sessions, 'session')})`;

function Placeholder({
  allowAny,
  pending,
  scope,
  value,
}: {
  allowAny: boolean;
  pending: boolean;
  scope: string;
  value?: string;
}) {
  if (allowAny) return <option value="">{pending ? 'loading…' : `any ${scope}`}</option>;
  return value === undefined ? <option value="">choose a {scope}…</option> : null;
}

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
        <Placeholder allowAny={allowAny} pending={list.isPending} scope={scope} value={value} />
        {known ? null : <option value={value}>{value}</option>}
        {contexts.map((c) => (
          <option key={c.key} value={c.key}>
            {optionLabel(c, countLabel)}
          </option>
        ))}
      </select>
    </span>
  );
}
