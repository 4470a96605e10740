import { describe, expect, it } from 'vitest';
import { expandWikiLinks, renderWikiMarkdown, resolveRelative } from '../../src/renderer/src/markdown';

const ctx = {
  currentPath: 'topics/sqlite.md',
  resolveSlug: (slug: string) =>
    slug.toLowerCase() === 'wal' ? 'topics/wal.md' : slug === 'INDEX' ? 'INDEX.md' : null,
  hrefFor: (p: string) => `#/wiki?path=${encodeURIComponent(p)}`,
};

const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);

describe('wiki markdown', () => {
  it('shows HTML as text instead of running it', () => {
    const html = renderWikiMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)> <b>bold</b>', ctx);
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain('&lt;script&gt;');
  });

  it('drops dangerous link schemes and keeps safe ones', () => {
    const html = renderWikiMarkdown(
      '[a](javascript:alert(1)) [b](JAVASCRIPT:x) [c](data:text/html,x) [d](vbscript:x) [e](file:///etc/passwd) [f](https://example.com/x) [g](mailto:a@b.c)',
      ctx,
    );
    expect(hrefs(html)).toEqual(['https://example.com/x', 'mailto:a@b.c']);
    expect(html).toContain('target="_blank"');
    expect(html).toContain('rel="noopener noreferrer"');
  });

  it('maps [[wiki links]] and relative paths into the app, and marks unknown pages', () => {
    const html = renderWikiMarkdown(
      '[[WAL]] [[INDEX|the index]] [[missing]] [up](../entities/bob.md) [out](../../../etc.md)',
      ctx,
    );
    expect(hrefs(html)).toEqual([
      '#/wiki?path=topics%2Fwal.md',
      '#/wiki?path=INDEX.md',
      '#',
      '#/wiki?path=entities%2Fbob.md',
      '#',
    ]);
    expect(html).toContain('the index');
    expect(html).toContain('class="broken-link"');
  });

  it('never loads images, which could be remote beacons', () => {
    const html = renderWikiMarkdown('![tracker](https://evil.example/pixel.png)', ctx);
    expect(html).not.toContain('<img');
    expect(html).toContain('[image: tracker]');
  });

  it('resolves relative paths inside the wiki only', () => {
    expect(resolveRelative('topics/a.md', 'b.md')).toBe('topics/b.md');
    expect(resolveRelative('topics/a.md', '../INDEX.md')).toBe('INDEX.md');
    expect(resolveRelative('INDEX.md', '../x.md')).toBeNull();
    expect(expandWikiLinks('[[a|b]]')).toBe('[b](evoflux-wiki:a)');
  });
});
