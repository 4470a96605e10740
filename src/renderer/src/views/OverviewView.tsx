import { useState, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { QueryView } from '../components/QueryView';
import { statsQueries } from '../queries/misc';
import { buildHash } from '../router';
import { fmtBytes, parseUtcStamp, plural } from '../format';
import type { Output } from '../api/client';

type Overview = Output<'stats.overview'>;

/** Colours readable on the light and the dark background alike (3:1 or better against both). */
const C = { blue: '#4f7be8', green: '#2e9e6a', orange: '#d9822b', red: '#e0564a', violet: '#9b6ee0' };
const AXIS = { fill: 'currentColor', fontSize: 12 };
const CHART_HEIGHT = 220;

/** A chart with its caption and, for screen readers and exact figures, the same numbers as a table. */
function Figure({
  title,
  id,
  rows,
  columns,
  children,
}: {
  title: string;
  id: string;
  rows: (string | number)[][];
  columns: string[];
  children: ReactNode;
}) {
  return (
    <figure className="card chart" data-testid={`chart-${id}`} aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>{title}</figcaption>
      <div className="chart-box" aria-hidden="true">
        <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
          {children as React.ReactElement}
        </ResponsiveContainer>
      </div>
      <details className="chart-data">
        <summary>Data</summary>
        <table className="grid small">
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                {r.map((v, j) => (
                  <td key={j}>{typeof v === 'number' ? v.toLocaleString('en-US') : v}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

const shortDay = (day: string) => day.slice(5);

function Totals({ d }: { d: Overview }) {
  const items: [string, string, string?][] = [
    ['Facts', d.totals.facts.toLocaleString('en-US'), buildHash('facts')],
    ['Evidence rows', d.totals.evidence.toLocaleString('en-US')],
    ['Sessions', d.totals.sessions.toLocaleString('en-US'), buildHash('sessions')],
    ['Messages', d.totals.messages.toLocaleString('en-US')],
    ['Data home', fmtBytes(d.storage.totalBytes)],
    ['Extraction failing now', String(d.extraction.failingNow), buildHash('extraction')],
  ];
  return (
    <dl className="totals" data-testid="overview-totals">
      {items.map(([label, value, href]) => (
        <div key={label} className="total card">
          <dt>{label}</dt>
          <dd>{href ? <a href={href}>{value}</a> : value}</dd>
        </div>
      ))}
    </dl>
  );
}

const Grid = () => <CartesianGrid strokeDasharray="3 3" />;

function ScopeAndKind({ d }: { d: Overview }) {
  return (
    <>
      <Figure
        id="scope"
        title="Facts by scope"
        columns={['scope', 'facts', 'contexts']}
        rows={d.byScope.map((s) => [s.scope, s.facts, s.contexts])}
      >
        <BarChart accessibilityLayer={false} data={d.byScope}>
          {Grid()}
          <XAxis dataKey="scope" tick={AXIS} />
          <YAxis allowDecimals={false} tick={AXIS} width={48} />
          <Tooltip />
          <Bar dataKey="facts" name="facts" fill={C.blue} isAnimationActive={false} />
        </BarChart>
      </Figure>
      <Figure id="kind" title="Facts by kind" columns={['kind', 'facts']} rows={d.byKind.map((k) => [k.kind, k.facts])}>
        <BarChart accessibilityLayer={false} data={d.byKind} layout="vertical" margin={{ left: 24 }}>
          {Grid()}
          <XAxis type="number" allowDecimals={false} tick={AXIS} />
          <YAxis type="category" dataKey="kind" tick={AXIS} width={84} />
          <Tooltip />
          <Bar dataKey="facts" name="facts" fill={C.violet} isAnimationActive={false} />
        </BarChart>
      </Figure>
    </>
  );
}

function Growth({ d }: { d: Overview }) {
  const growth = d.growth.map((g) => ({ ...g, label: shortDay(g.day) }));
  return (
    <>
      <Figure
        id="growth"
        title={`Added per day (last ${d.growth.length} days)`}
        columns={['day', 'facts', 'evidence', 'sessions']}
        rows={d.growth.map((g) => [g.day, g.facts, g.evidence, g.sessions])}
      >
        <BarChart accessibilityLayer={false} data={growth}>
          {Grid()}
          <XAxis dataKey="label" tick={AXIS} minTickGap={12} />
          <YAxis allowDecimals={false} tick={AXIS} width={48} />
          <Tooltip />
          <Legend />
          <Bar dataKey="facts" name="facts" fill={C.blue} isAnimationActive={false} />
          <Bar dataKey="evidence" name="evidence" fill={C.green} isAnimationActive={false} />
          <Bar dataKey="sessions" name="sessions" fill={C.orange} isAnimationActive={false} />
        </BarChart>
      </Figure>
      <Figure
        id="total"
        title="Facts over time"
        columns={['day', 'facts']}
        rows={d.growth.map((g) => [g.day, g.factsTotal])}
      >
        <LineChart accessibilityLayer={false} data={growth}>
          {Grid()}
          <XAxis dataKey="label" tick={AXIS} minTickGap={12} />
          <YAxis allowDecimals={false} tick={AXIS} width={56} />
          <Tooltip />
          <Line type="linear" dataKey="factsTotal" name="facts" stroke={C.blue} dot={false} isAnimationActive={false} />
        </LineChart>
      </Figure>
    </>
  );
}

function Runs({ d }: { d: Overview }) {
  const extraction = d.extraction.days.map((x) => ({ ...x, ok: x.runs - x.failed, label: shortDay(x.day) }));
  const dream = d.dream.map((r) => {
    const at = parseUtcStamp(r.at);
    const label = at === null ? r.at : new Date(at).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
    return { ...r, label };
  });
  return (
    <>
      <Figure
        id="extraction"
        title="Extraction runs per day"
        columns={['day', 'runs', 'failed', 'facts stored']}
        rows={d.extraction.days.map((x) => [x.day, x.runs, x.failed, x.factsStored])}
      >
        <BarChart accessibilityLayer={false} data={extraction}>
          {Grid()}
          <XAxis dataKey="label" tick={AXIS} minTickGap={12} />
          <YAxis allowDecimals={false} tick={AXIS} width={48} />
          <Tooltip />
          <Legend />
          <Bar dataKey="ok" name="succeeded" stackId="runs" fill={C.green} isAnimationActive={false} />
          <Bar dataKey="failed" name="failed" stackId="runs" fill={C.red} isAnimationActive={false} />
        </BarChart>
      </Figure>
      <Figure
        id="dream"
        title="Dream runs: pages written"
        columns={['run (UTC)', 'sessions', 'notes', 'failed', 'pages written']}
        rows={d.dream.map((r) => [r.at, r.sessions ?? '—', r.notes ?? '—', r.failed ?? '—', r.pagesWritten ?? '—'])}
      >
        <BarChart accessibilityLayer={false} data={dream}>
          {Grid()}
          <XAxis dataKey="label" tick={AXIS} minTickGap={12} />
          <YAxis allowDecimals={false} tick={AXIS} width={48} />
          <Tooltip />
          <Legend />
          <Bar dataKey="pagesWritten" name="pages written" fill={C.violet} isAnimationActive={false} />
          <Bar dataKey="sessions" name="sessions" fill={C.blue} isAnimationActive={false} />
        </BarChart>
      </Figure>
    </>
  );
}

function Storage({ d }: { d: Overview }) {
  const parts = [
    { part: 'database', bytes: d.storage.databaseBytes },
    { part: 'wiki', bytes: d.storage.wikiBytes },
    { part: 'other', bytes: d.storage.otherBytes },
  ];
  return (
    <Figure
      id="storage"
      title={`Data home: ${fmtBytes(d.storage.totalBytes)}`}
      columns={['part', 'size']}
      rows={parts.map((s) => [s.part, fmtBytes(s.bytes)])}
    >
      <BarChart accessibilityLayer={false} data={parts} layout="vertical" margin={{ left: 24 }}>
        {Grid()}
        <XAxis type="number" tick={AXIS} tickFormatter={(v: number) => fmtBytes(v)} />
        <YAxis type="category" dataKey="part" tick={AXIS} width={72} />
        <Tooltip formatter={(v) => fmtBytes(Number(v))} />
        <Bar dataKey="bytes" name="size" fill={C.orange} isAnimationActive={false} />
      </BarChart>
    </Figure>
  );
}

function Charts({ d }: { d: Overview }) {
  return (
    <div className="charts">
      <ScopeAndKind d={d} />
      <Growth d={d} />
      <Runs d={d} />
      <Storage d={d} />
    </div>
  );
}

export function OverviewView() {
  const [days, setDays] = useState(30);
  const overview = useQuery(statsQueries.overview(days));
  return (
    <div className="page" data-testid="overview-view">
      <div className="page-header">
        <h2>Overview</h2>
        <label className="right small">
          Days shown{' '}
          <select value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {[7, 30, 90, 365].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      </div>
      <QueryView query={overview} loading="Counting…">
        {(d) => (
          <>
            <Totals d={d} />
            <p className="muted small">
              {plural(d.byRecall.find((r) => r.recall === 'pinned')?.facts ?? 0, 'pinned fact')},{' '}
              {plural(d.byRecall.find((r) => r.recall === 'paused')?.facts ?? 0, 'paused fact')}. Data home:{' '}
              <span className="mono">{d.storage.home}</span>
            </p>
            <Charts d={d} />
          </>
        )}
      </QueryView>
    </div>
  );
}
