import { describe, expect, it } from 'vitest';
import { sseParser } from '../../src/renderer/src/api/transport';
import { linkMessages, renderWikiMarkdown, stripComments } from '../../src/renderer/src/markdown';
import { settingToFix } from '../../src/renderer/src/setting-hints';
import { leadingComment } from '../../src/renderer/src/components/UserProfile';
import { cleanSnippet } from '../../src/renderer/src/views/SearchView';
import { parseUtcStamp } from '../../src/renderer/src/format';

describe('the event stream parser', () => {
  it('yields whole events across chunk boundaries and skips comments', () => {
    const got: [string, string][] = [];
    const feed = sseParser((e, d) => got.push([e, d]));
    feed('retry: 2000\nevent: ready\ndata: {}\n\n: ping\n\nevent: chan');
    feed('ged\ndata: {"sources":["db"]}\r\n\r\n');
    expect(got).toEqual([
      ['ready', '{}'],
      ['changed', '{"sources":["db"]}'],
    ]);
  });
});

describe('wiki pages read cleanly', () => {
  const ctx = {
    currentPath: 'sources/session-1.md',
    resolveSlug: (s: string) =>
      s === 'project-billing-0c95c7-decisions' ? 'topics/project-billing-0c95c7-decisions.md' : null,
    hrefFor: (p: string) => `#/wiki?path=${encodeURIComponent(p)}`,
    messageHref: (seq: number) => `#/sessions/S1?msg=${seq}`,
    titleOf: (p: string) => (p.includes('decisions') ? 'Decisions: project billing' : null),
  };

  it('hides machine anchors, links "message #N" to the transcript and names pages by title', () => {
    const html = renderWikiMarkdown(
      '- Uses Postgres 16 — message #3 <!-- fact:0190-abc -->\n- see [[project-billing-0c95c7-decisions]]\n',
      ctx,
    );
    expect(html).not.toContain('fact:');
    expect(html).not.toContain('&lt;!--');
    expect(html).toContain('<a href="#/sessions/S1?msg=3" class="message-link">message #3</a>');
    expect(html).toContain('>Decisions: project billing</a>');
    expect(stripComments('a <!-- x\ny --> b')).toBe('a b');
    expect(linkMessages('[message #2](x) and message #4')).toBe('[message #2](x) and [message #4](evoflux-msg:4)');
    // Without a session, "message #N" stays text.
    expect(renderWikiMarkdown('message #3', { ...ctx, messageHref: undefined })).not.toContain('<a');
  });

  it('shows search excerpts without anchors, link brackets or heading marks, even when cut mid-comment', () => {
    expect(cleanSnippet('…b0ca7f --> - Invoices _(convention)_ [[session-2afbd5de]] <!-- fact:01a2')).toBe(
      '- Invoices (convention) session-2afbd5de',
    );
    expect(cleanSnippet('# Decisions ## Facts - Billing')).toBe('Decisions Facts - Billing');
  });

  it("takes USER.md's leading comment as its explanation", () => {
    expect(leadingComment('# Durable profile.\n# Data, not policy.\nidentity: {}\n# later')).toBe(
      'Durable profile. Data, not policy.',
    );
  });
});

describe('extraction failures name the setting to fix', () => {
  it.each([
    ['LLM endpoint unreachable: fetch failed', 'llm.baseUrl'],
    ['LLM endpoint answered HTTP 401', 'llm.apiKey'],
    ['LLM endpoint answered HTTP 404', 'llm.model'],
    ['LLM timeout: LLM timeout after 45000 ms', 'llm.timeoutMs'],
    ['llm.model is not set in settings.yaml', 'llm.model'],
    ['LLM endpoint answered HTTP 503', 'llm.baseUrl'],
    ['LLM returned invalid JSON (12 chars)', 'llm.model'],
  ])('%s -> %s', (error, setting) => {
    expect(settingToFix(error)?.setting).toBe(setting);
  });

  it('says nothing for failures no setting fixes', () => {
    expect(settingToFix('cancelled during shutdown')).toBeNull();
    expect(settingToFix(null)).toBeNull();
  });
});

describe('times', () => {
  it('reads LOG.md stamps as UTC instants', () => {
    expect(parseUtcStamp('2026-03-10 23:30 UTC')).toBe(Date.parse('2026-03-10T23:30:00Z'));
    expect(parseUtcStamp('yesterday')).toBeNull();
  });
});
