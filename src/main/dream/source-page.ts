import { createHash } from 'node:crypto';
import { slugify } from '../wiki/links';
import type { WikiService } from '../wiki/service';
import { idSlug } from '../../shared/ids';

/** What the lookup needs to know about the wiki: whether a page exists and which session it names. */
export interface SourcePages {
  exists(rel: string): boolean;
  /** The page's front matter `session` value (undefined when absent or the page is missing). */
  sessionOf(rel: string): unknown;
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** The readable part of a page name: the tail of the id made path-safe (a UUID's last group). */
function readable(sessionId: string): string {
  return slugify(sessionId, 'session', 200).slice(-12).replace(/^-+/, '') || 'session';
}

/**
 * `session-<readable tail of the id>-<8 hex of its SHA-256>`: safe in a path whatever the id
 * holds (`/`, spaces, Unicode), and unique, because the hash covers the whole id (two ids that
 * share their last digits get different names).
 */
export function sessionSourceSlug(sessionId: string): string {
  return `session-${readable(sessionId)}-${sha256(sessionId).slice(0, 8)}`;
}

/** Both names the current version may give a session's page (the second only on a name clash). */
export function sessionSourceSlugs(sessionId: string): string[] {
  return [sessionSourceSlug(sessionId), fullHashSlug(sessionId)];
}

const fullHashSlug = (sessionId: string) => `session-${readable(sessionId)}-${sha256(sessionId)}`;

/** Names older versions gave the page (`session-<last 8 hex>`, and 16 on a clash), kept in use where they exist. */
function legacyPaths(sessionId: string): string[] {
  const compact = sessionId.replace(/-/g, '').toLowerCase();
  return [idSlug(sessionId), compact.slice(-16)]
    .filter((s) => /^[a-z0-9]+$/.test(s))
    .map((s) => `sources/session-${s}.md`);
}

/**
 * The one mapping from a session to its Dream source page, for writing it, linking to it and
 * deleting it. An existing page that names this session in its front matter keeps its name
 * (new or older style), so nothing is orphaned; otherwise the page is
 * `sources/<sessionSourceSlug>.md`, or, should another session's page hold that name, the same
 * with the full hash.
 */
export function sessionSourcePage(pages: SourcePages, sessionId: string): string {
  const canonical = `sources/${sessionSourceSlug(sessionId)}.md`;
  for (const rel of [canonical, ...legacyPaths(sessionId)]) {
    if (pages.exists(rel) && pages.sessionOf(rel) === sessionId) return rel;
  }
  const owner = pages.exists(canonical) ? pages.sessionOf(canonical) : undefined;
  if (owner === undefined || owner === sessionId) return canonical;
  return `sources/${fullHashSlug(sessionId)}.md`;
}

/** A SourcePages view of the wiki on disk. */
export function wikiSourcePages(wiki: WikiService): SourcePages {
  return {
    exists: (rel) => wiki.exists(rel),
    sessionOf: (rel) => wiki.summary(rel)?.data?.session,
  };
}

/** The page's slug (the `[[link]]` target) from its path. */
export const sourceSlugOf = (rel: string): string => rel.slice('sources/'.length, -'.md'.length);

/**
 * Every path a session's page may have, this version's and older versions': what forget deletes
 * and what lint and the forget preview match links against.
 */
export function sessionSourcePaths(sessionId: string): string[] {
  return [...sessionSourceSlugs(sessionId).map((slug) => `sources/${slug}.md`), ...legacyPaths(sessionId)];
}

/** The `[[link]]` targets of every path above. */
export const sessionSourceLinkSlugs = (sessionId: string): string[] => sessionSourcePaths(sessionId).map(sourceSlugOf);
