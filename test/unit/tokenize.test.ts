import { describe, expect, it } from 'vitest';
import { normalizeToken, queryTerms, rawTokens, surfaceForms } from '../../src/main/text/tokenize';

describe('tokenizer', () => {
  it('splits on everything but letters and digits, underscore included', () => {
    expect(rawTokens('USER.md snake_case v2-beta')).toEqual(['user', 'md', 'snake', 'case', 'v2', 'beta']);
  });

  it('keeps Vietnamese letters whole after NFC', () => {
    const decomposed = 'Tie\u0302\u0301ng Vie\u0323\u0302t';
    expect(rawTokens(decomposed)).toEqual(['tiếng', 'việt']);
  });

  it.each([
    ['running', 'run'],
    ['preferences', 'preference'],
    ['passed', 'pas'],
    ['libraries', 'library'],
    ['tests', 'test'],
    ['class', 'clas'],
    ['is', 'is'],
    ['used', 'us'],
    ['ties', 'tie'],
    ['classes', 'clas'],
    ['boxes', 'box'],
    ['pushes', 'push'],
    ['matches', 'match'],
    ['caches', 'cache'],
    ['uses', 'use'],
    ['axes', 'axe'],
  ])('normalizes %s -> %s', (raw, norm) => {
    expect(normalizeToken(raw)).toBe(norm);
  });

  it('drops stop-words on the raw token and keeps a distinct, ordered set', () => {
    const q = queryTerms('What is the preferred package manager for my projects? Projects!');
    expect(q.meaningful).toEqual(['prefer', 'package', 'manager', 'project']);
    expect(q.all).toContain('the');
    expect(q.sequence).toEqual(['prefer', 'package', 'manager', 'project', 'project']);
  });

  it('keeps numbers whole: years, versions and counts are never folded', () => {
    expect(normalizeToken('2022')).toBe('2022');
    expect(normalizeToken('1990s')).toBe('1990s');
    expect(normalizeToken('v2')).toBe('v2');
    // Digits of other scripts, and ASCII digits after a letter past ASCII.
    expect(normalizeToken('२०२२s')).toBe('२०२२s');
    expect(normalizeToken('cm²s')).toBe('cm²s');
    expect(normalizeToken('năm2022s')).toBe('năm2022s');
    expect(normalizeToken('cafés')).toBe('café');
    expect(surfaceForms('2022')).toEqual(['2022']);
    expect(queryTerms('What happened in May 2022?').meaningful).toEqual(['happen', 'may', '2022']);
  });

  it('drops question words and every form of the auxiliaries, before folding', () => {
    expect(queryTerms('When was that, what has he been doing, did she do it, who does?').meaningful).toEqual([]);
    expect(queryTerms('When did his sister start doing pottery?').meaningful).toEqual(['sister', 'start', 'pottery']);
  });

  it('treats Vietnamese stop-words as stop-words', () => {
    expect(queryTerms('tôi thích và của').meaningful).toEqual(['thích']);
  });

  it('surface forms are exactly the raw tokens that normalize to the term', () => {
    for (const term of ['run', 'preference', 'pas', 'library', 'test', 'deploy', 'use']) {
      const forms = surfaceForms(term);
      expect(forms.length).toBeGreaterThan(0);
      for (const f of forms) expect(normalizeToken(f)).toBe(term);
    }
    expect(surfaceForms('run')).toEqual(expect.arrayContaining(['run', 'runs', 'running']));
    expect(surfaceForms('library')).toContain('libraries');
    expect(surfaceForms('pas')).toEqual(expect.arrayContaining(['passed', 'pass']));
    // A plural in -es meets its singular: "classes" is found by "class", "matches" by "match".
    expect(surfaceForms(normalizeToken('class'))).toEqual(expect.arrayContaining(['class', 'classes']));
    expect(surfaceForms('match')).toEqual(expect.arrayContaining(['match', 'matches', 'matched', 'matching']));
    expect(surfaceForms('cache')).toEqual(expect.arrayContaining(['cache', 'caches']));
  });

  it('every token of a text is found again through the surface forms of its normalization', () => {
    const text = 'Deploying the libraries passed; running tests uses preferences and classes';
    for (const raw of rawTokens(text)) expect(surfaceForms(normalizeToken(raw))).toContain(raw);
  });
});

describe('surfaceForms', () => {
  it('holds every raw word that folds to the term, over generated words', () => {
    // Letters that make the folding rules fire (ies, ing, ed, es after ss, x, sh and ch, s, ss,
    // doubled letters), digits and a non-ASCII letter.
    const letters = 'aeisdngyltr2éxhc';
    let state = 5;
    const next = (n: number) => Math.floor(((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    for (let i = 0; i < 30_000; i++) {
      const raw = Array.from({ length: 1 + next(9) }, () => letters[next(letters.length)]).join('');
      expect(surfaceForms(normalizeToken(raw))).toContain(raw);
    }
  });
});
