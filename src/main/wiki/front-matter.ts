import { yaml as yamlPackage } from '../lazy-deps';
import { CONFIDENCES, type Confidence } from '../../shared/domain';

/** The page metadata the tree, lint and Dream read. Every key is optional on disk. */
export interface PageMeta {
  description: string | null;
  updated: string | null;
  tags: string[];
  confidence: Confidence | null;
  sources: string[];
  related: string[];
  /** Scopes whose content the page holds (see page-scopes.ts); empty = unscoped. */
  scopes: string[];
}

export interface ParsedPage {
  /** The front matter mapping as written (null when absent or not a mapping). */
  data: Record<string, unknown> | null;
  meta: PageMeta;
  body: string;
}

// Front matter only counts at the very start: optional whitespace, `---`, YAML, `---`, body.
const FRONT = /^\s*---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

export const emptyMeta = (): PageMeta => ({
  description: null,
  updated: null,
  tags: [],
  confidence: null,
  sources: [],
  related: [],
  scopes: [],
});

const stringList = (v: unknown, lower = false): string[] =>
  (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v])
    .map((x) => (x instanceof Date ? x.toISOString() : String(x)).trim())
    .map((x) => (lower ? x.toLowerCase() : x))
    .filter((x) => x.length > 0);

function toMeta(data: Record<string, unknown>): PageMeta {
  const meta = emptyMeta();
  if (typeof data.description === 'string' && data.description.trim()) meta.description = data.description.trim();
  const updated = data.updated;
  if (updated instanceof Date && !Number.isNaN(updated.getTime())) meta.updated = updated.toISOString().slice(0, 10);
  else if (typeof updated === 'string' && updated.trim()) meta.updated = updated.trim();
  meta.tags = stringList(data.tags, true);
  const c = typeof data.confidence === 'string' ? data.confidence.trim().toLowerCase() : '';
  meta.confidence = (CONFIDENCES as readonly string[]).includes(c) ? (c as Confidence) : null;
  meta.sources = stringList(data.sources);
  meta.related = stringList(data.related);
  meta.scopes = stringList(data.scopes);
  return meta;
}

/** Splits a page into its front matter and body. Malformed YAML counts as no front matter. */
export function parsePage(text: string): ParsedPage {
  const m = FRONT.exec(text);
  if (!m) return { data: null, meta: emptyMeta(), body: text };
  let data: unknown;
  try {
    // yaml's default core schema never builds arbitrary objects: it is a safe load.
    data = yamlPackage().parse(m[1] ?? '', { prettyErrors: false, logLevel: 'error' });
  } catch {
    return { data: null, meta: emptyMeta(), body: text };
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { data: null, meta: emptyMeta(), body: text };
  const record = data as Record<string, unknown>;
  return { data: record, meta: toMeta(record), body: text.slice(m[0].length) };
}

/** Writes a page with front matter; the inverse of parsePage for any mapping and body. */
export function renderPage(data: Record<string, unknown> | null, body: string): string {
  if (!data || Object.keys(data).length === 0) return body;
  const yaml = yamlPackage().stringify(data, { lineWidth: 0 }).trimEnd();
  return `---\n${yaml}\n---\n${body}`;
}
