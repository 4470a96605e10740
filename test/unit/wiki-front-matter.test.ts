import { describe, expect, it } from 'vitest';
import { parsePage, renderPage } from '../../src/main/wiki/front-matter';
import { extractWikiLinks } from '../../src/main/wiki/links';

describe('front matter', () => {
  it('round-trips any mapping and body', () => {
    const data = {
      description: 'SQLite in WAL mode: one writer, many readers',
      tags: ['sqlite', 'storage'],
      updated: '2026-04-29',
      confidence: 'high',
      sources: ['session-1a2b3c4d', 'note-2026-04-29'],
      related: ['better-sqlite3'],
      nested: { a: [1, 2, { b: 'c: d' }] },
      tricky: '--- not a fence ---',
    };
    const body = '# SQLite\n\n---\n\nA horizontal rule above is body, not front matter.\n';
    const text = renderPage(data, body);
    const parsed = parsePage(text);
    expect(parsed.data).toEqual(data);
    expect(parsed.body).toBe(body);
    expect(renderPage(parsed.data, parsed.body)).toBe(text);
    expect(parsed.meta).toEqual({
      description: 'SQLite in WAL mode: one writer, many readers',
      updated: '2026-04-29',
      tags: ['sqlite', 'storage'],
      confidence: 'high',
      sources: ['session-1a2b3c4d', 'note-2026-04-29'],
      related: ['better-sqlite3'],
      scopes: [],
    });
  });

  it('normalises recognised keys and ignores junk', () => {
    const p = parsePage(
      '\n  ---\r\ndescription: "  padded  "\r\ntags: [A, " b ", "", 3]\r\nconfidence: HIGH\r\nsources: x\r\n---\r\nbody',
    );
    expect(p.meta).toMatchObject({ description: 'padded', tags: ['a', 'b', '3'], confidence: 'high', sources: ['x'] });
    expect(p.body).toBe('body');
    expect(parsePage('---\nconfidence: sure\n---\n').meta.confidence).toBeNull();
  });

  it('treats missing, malformed or non-mapping front matter as absent', () => {
    for (const text of [
      '# Title\n',
      '---\n[unclosed\n---\nbody',
      '---\n- a\n- b\n---\nbody',
      'text\n---\na: 1\n---\n',
    ]) {
      const p = parsePage(text);
      expect(p.data).toBeNull();
      expect(p.body).toBe(text);
      expect(p.meta.description).toBeNull();
    }
  });

  it('does not build objects from YAML tags (safe load)', () => {
    const p = parsePage('---\na: !!js/function "function(){}"\nb: 1\n---\n');
    expect(typeof (p.data?.a ?? '')).not.toBe('function');
  });

  it('extracts wikilinks in every spelling', () => {
    expect(extractWikiLinks('see [[SQLite]], [[topics/wal.md]], [[a|label]] and [[b#part]] and [[SQLite]]')).toEqual([
      'sqlite',
      'wal',
      'a',
      'b',
    ]);
  });
});
