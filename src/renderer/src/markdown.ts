import MarkdownIt from 'markdown-it';

/** Schemes a link in a wiki page may use; everything else (javascript:, data:, file:, vbscript:) is dropped. */
const SAFE_SCHEME = /^(https?:|mailto:)/i;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export interface WikiLinkContext {
  /** The page being rendered, e.g. topics/sqlite.md (relative links resolve against it). */
  currentPath: string;
  /** `[[slug]]` -> the page path, or null when no page has that slug. */
  resolveSlug(slug: string): string | null;
  /** The in-app address of a wiki page. */
  hrefFor(path: string): string;
  /**
   * The transcript address of "message #N" on a page that belongs to one session (a Dream
   * source page names it in its front matter); absent, the text stays plain.
   */
  messageHref?(seq: number): string;
  /** A page's title, shown for a bare [[slug]] instead of the (often hashed) slug. */
  titleOf?(path: string): string | null;
}

/**
 * HTML comments are for machines (Dream's `<!-- fact:ID -->` anchors) and are not shown, as
 * Markdown renderers normally hide them. With HTML rendering off they would show as text.
 */
export const stripComments = (body: string): string => body.replace(/[ \t]*<!--[\s\S]*?-->/g, '');

/** "message #3" -> a link into the session's transcript at that message. */
export const linkMessages = (body: string): string =>
  body.replace(
    /(^|[^[\w])message #(\d+)\b/g,
    (_m, lead: string, seq: string) => `${lead}[message #${seq}](evoflux-msg:${seq})`,
  );

/** topics/a.md + ../entities/b.md -> entities/b.md; null when it climbs out of the wiki. */
export function resolveRelative(from: string, target: string): string | null {
  const parts = from.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (!parts.length) return null;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/') || null;
}

/**
 * `[[slug]]` and `[[slug|label]]` become ordinary links with a private scheme the renderer maps;
 * a bare slug shows `labelFor(slug)` when it knows a better name (the page's title).
 */
export const expandWikiLinks = (body: string, labelFor?: (slug: string) => string | null): string =>
  body.replace(/\[\[([^\]|\n]+)(?:\|([^\]\n]+))?\]\]/g, (_m, target: string, label?: string) => {
    const text = (label ?? labelFor?.(target.trim()) ?? target).trim().replace(/[[\]]/g, '');
    return `[${text}](evoflux-wiki:${encodeURIComponent(target.trim())})`;
  });

/**
 * Markdown for wiki pages: HTML disabled (tags show as text), links limited to http(s),
 * mailto, in-wiki paths and [[wiki links]]; external links open outside the app; images can
 * only come from our own origin (the CSP enforces that as well).
 */
export function renderWikiMarkdown(body: string, ctx: WikiLinkContext): string {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  md.validateLink = (url) => {
    const u = url.trim();
    return (
      SAFE_SCHEME.test(u) ||
      u.startsWith('evoflux-wiki:') ||
      u.startsWith('evoflux-msg:') ||
      u.startsWith('#') ||
      !HAS_SCHEME.test(u)
    );
  };
  md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
    const token = tokens[idx]!;
    const href = String(token.attrGet('href') ?? '');
    if (href.startsWith('evoflux-msg:')) {
      token.attrSet('href', ctx.messageHref?.(Number(href.slice('evoflux-msg:'.length))) ?? '#');
      token.attrSet('class', 'message-link');
    } else if (href.startsWith('evoflux-wiki:')) {
      const target = ctx.resolveSlug(decodeURIComponent(href.slice('evoflux-wiki:'.length)));
      if (target) token.attrSet('href', ctx.hrefFor(target));
      else {
        token.attrSet('href', '#');
        token.attrSet('class', 'broken-link');
        token.attrSet('title', 'No page with this name');
      }
    } else if (SAFE_SCHEME.test(href)) {
      token.attrSet('target', '_blank');
      token.attrSet('rel', 'noopener noreferrer');
    } else if (!href.startsWith('#')) {
      const [pathPart] = href.split('#');
      const target = pathPart ? resolveRelative(ctx.currentPath, decodeURIComponent(pathPart)) : null;
      token.attrSet('href', target ? ctx.hrefFor(target) : '#');
    }
    return self.renderToken(tokens, idx, options);
  };
  md.renderer.rules.image = (tokens, idx) => {
    // A remote image would be a tracking beacon; show its alt text instead.
    const token = tokens[idx]!;
    return `<span class="muted">[image: ${md.utils.escapeHtml(token.content || String(token.attrGet('src') ?? ''))}]</span>`;
  };
  const text = stripComments(body);
  const labelFor = ctx.titleOf
    ? (slug: string) => {
        const target = ctx.resolveSlug(slug);
        return target ? ctx.titleOf!(target) : null;
      }
    : undefined;
  return md.render(expandWikiLinks(ctx.messageHref ? linkMessages(text) : text, labelFor));
}
