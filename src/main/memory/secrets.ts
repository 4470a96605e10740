/**
 * Secret detection for anything about to become a stored fact. A match names only the kind of
 * secret and never carries the matched value, so callers can count and log a rejection without
 * leaking what was rejected.
 */
export type SecretKind =
  | 'private-key'
  | 'credential-assignment'
  | 'connection-string'
  | 'bearer-token'
  | 'openai-key'
  | 'anthropic-key'
  | 'github-token'
  | 'gitlab-token'
  | 'aws-access-key'
  | 'aws-secret-key'
  | 'google-api-key'
  | 'slack-token'
  | 'stripe-key'
  | 'jwt'
  | 'npm-token'
  | 'credential-statement'
  | 'pin-code'
  | 'high-entropy';

interface SecretPattern {
  kind: SecretKind;
  pattern: RegExp;
  /**
   * Lower-case substrings one of which every match contains: a text holding none of them is
   * skipped without running the pattern (most text holds no secret, and search snippets and
   * Dream pages redact a lot of text).
   */
  hints: string[];
  /**
   * When the pattern has a group named `v`, only that value is the secret: redaction keeps the
   * words around it ("my password is [redacted ...]") and `accept` may veto a value that is an
   * ordinary word rather than a credential.
   */
  accept?: (value: string) => boolean;
}

// ":" and "=" and the Unicode look-alikes people type or paste (full-width, small, ratio,
// modifier-letter and triangular colons, full-width and small equals signs).
const SEP = '[:=\\uFF1A\\uFE55\\uFE13\\uA789\\u02D0\\u2236\\u205A\\uFF1D\\uFE66]';

// After "my password is", words that describe the password instead of being it.
const DESCRIBES_NOT_VALUE =
  /^(?:[a-z]+(?:ed|ing|ly)|a|an|the|in|on|at|to|of|for|by|from|with|not|no|too|very|so|also|still|now|set|reset|kept|stored|saved|managed|secret|private|weak|strong|long|short|wrong|right|correct|incorrect|invalid|valid|empty|blank|missing|same|different|new|old|temporary|unknown|hidden|safe|unsafe|fine|ok|okay|good|bad|easy|hard|simple|complex|mandatory|optional|needed|necessary|important|confidential|here|there|below|above|this|that|it|something|nothing|my|your|our|their|his|her|its|\d{1,3})$/i;

const QUOTED_OR_WORD = `(?:"[^"\\n]{1,100}"|'[^'\\n]{1,100}'|\u201c[^\u201d\\n]{1,100}\u201d|[^\\s"'\u201c\u201d,;.!?]+(?:[.,;!?][^\\s"'\u201c\u201d,;.!?]+)*)`;

// Ordered from most to least specific so a provider key is reported as such, not as "entropy".
const PATTERNS: SecretPattern[] = [
  { kind: 'private-key', hints: ['-----begin'], pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/i },
  { kind: 'anthropic-key', hints: ['sk-ant-'], pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/ },
  { kind: 'openai-key', hints: ['sk-'], pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{12,}/ },
  {
    kind: 'github-token',
    hints: ['gh', 'github_pat_'],
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/,
  },
  { kind: 'gitlab-token', hints: ['glpat-'], pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  {
    kind: 'aws-access-key',
    hints: ['akia', 'asia', 'agpa', 'aida', 'aroa'],
    pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b/,
  },
  {
    kind: 'aws-secret-key',
    hints: ['aws'],
    pattern: new RegExp(`\\baws_?secret_?access_?key\\b\\s*${SEP}\\s*\\S+`, 'i'),
  },
  { kind: 'google-api-key', hints: ['aiza'], pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  { kind: 'slack-token', hints: ['xox'], pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'stripe-key', hints: ['_live_', '_test_'], pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { kind: 'npm-token', hints: ['npm_'], pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { kind: 'jwt', hints: ['eyj'], pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: 'bearer-token', hints: ['bearer', 'token'], pattern: /\b(?:bearer|token)\s+[A-Za-z0-9._~+/-]{20,}=*/i },
  {
    // scheme://user:password@host: the password part is non-empty and not a placeholder variable.
    kind: 'connection-string',
    hints: ['://'],
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]+:(?!\$\{|\*+@|<)[^\s@/]+@[^\s/]+/i,
  },
  {
    // The reference's words: "password: x", "api_key=x", "access token: x", whatever the value.
    kind: 'credential-assignment',
    hints: ['pass', 'api', 'access'],
    pattern: new RegExp(
      `\\b(?:passwords?|passwd|passphrase|passcode|api[ _-]?key|apikey|access[ _-]?token|accesstoken)\\b\\s*${SEP}\\s*\\S+`,
      'i',
    ),
  },
  {
    // Vaguer words ("secret: ...", "token=...") only with a value that looks machine-made.
    kind: 'credential-assignment',
    hints: ['secret', 'token', 'key', 'pwd'],
    pattern: new RegExp(
      `\\b(?:secret|client[ _-]?secret|auth[ _-]?token|refresh[ _-]?token|private[ _-]?key|token|pwd)\\b\\s*${SEP}\\s*["']?(?=[^\\s"']*[0-9_+/=!@#$%^&*-])[^\\s"']{8,}`,
      'i',
    ),
  },
  {
    // "my password is x", "the wifi password for prod was x": said in words, not assigned.
    kind: 'credential-statement',
    hints: ['pass'],
    pattern: new RegExp(
      `\\b(?:my|our|your|his|her|their|the)(?:\\s+[\\w.@-]+){0,2}?\\s+(?:password|passwd|passphrase|pass phrase|passcode)` +
        `(?:\\s+(?:for|to|of|on|at)(?:\\s+[\\w.@/-]+){1,3}?)?\\s+(?:is|was)\\s*${SEP}?\\s+(?<v>${QUOTED_OR_WORD})`,
      'i',
    ),
    accept: (value) => !DESCRIBES_NOT_VALUE.test(value),
  },
  {
    // "PIN 4821", "the PIN is 1234", "PIN: 0000": the capitalised word is never the verb "pin".
    kind: 'pin-code',
    hints: ['pin'],
    pattern: new RegExp(
      `\\bPIN(?:\\s*(?:code|number|no\\.?|#))?\\s*(?:(?:is|was)\\s*${SEP}?|${SEP})?\\s*(?<v>\\d{4,8})\\b`,
    ),
  },
  {
    // Lower case only with "is" or a separator: "my pin is 482913", "pin code: 7731".
    kind: 'pin-code',
    hints: ['pin'],
    pattern: new RegExp(
      `\\bpin(?:[ _-]?(?:code|number))?\\s*(?:(?:is|was)\\s*${SEP}?|${SEP})\\s*(?<v>\\d{4,8})\\b`,
      'i',
    ),
  },
];

/** Shannon entropy in bits per character. */
export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const charClass = (ch: string) => (/[a-z]/.test(ch) ? 0 : /[A-Z]/.test(ch) ? 1 : /[0-9]/.test(ch) ? 2 : 3);

/**
 * A long token mixing upper case, lower case and digits, with high entropy and frequent switches
 * between those classes, looks like a generated credential. Hex digests (git SHAs, checksums)
 * and UUIDs use one letter case; identifiers (camelCase, Base64EncodedName2024) switch class
 * rarely; so neither is mistaken for a secret.
 */
function looksHighEntropy(token: string): boolean {
  if (token.length < 24) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((r) => r.test(token)).length;
  if (classes < 3) return false;
  let switches = 0;
  for (let i = 1; i < token.length; i++) if (charClass(token[i]!) !== charClass(token[i - 1]!)) switches++;
  return switches / (token.length - 1) >= 0.45 && shannonEntropy(token) >= 3.6;
}

const TOKEN_MIN = 24;
// Characters of a candidate token: letters, digits and + / _ = - (Base64, Base64url, hex).
const TOKEN_CHAR = new Uint8Array(128);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_=-')
  TOKEN_CHAR[ch.charCodeAt(0)] = 1;

/**
 * Runs of token characters of at least 24, as [start, end) spans. A plain loop: the regex
 * equivalent retries at every position inside every shorter word, several times slower.
 */
function longTokens(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    if (code < 128 && TOKEN_CHAR[code]) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start >= TOKEN_MIN) spans.push([start, i]);
      start = -1;
    }
  }
  return spans;
}

const mayMatch = (p: SecretPattern, lower: string) => p.hints.some((h) => lower.includes(h));

export interface SecretMatch {
  kind: SecretKind;
}

/** The first kind of secret found in `text`, or null. The match itself is never returned. */
export function findSecret(text: string): SecretMatch | null {
  const lower = text.toLowerCase();
  for (const p of PATTERNS) if (mayMatch(p, lower) && matchesOf(p, text).length) return { kind: p.kind };
  for (const [a, b] of longTokens(text)) if (looksHighEntropy(text.slice(a, b))) return { kind: 'high-entropy' };
  return null;
}

/**
 * `text` with every secret replaced by `[redacted <kind>]`, e.g. before a transcript leaves the
 * machine for a model endpoint. Returns how many spans were replaced, never what they were.
 */
export function redactSecrets(text: string): { text: string; redactions: number } {
  let redactions = 0;
  let out = text;
  let lower = out.toLowerCase();
  for (const p of PATTERNS) {
    if (!mayMatch(p, lower)) continue;
    const spans = matchesOf(p, out);
    if (!spans.length) continue;
    // One pass over the text, so many matches cost linear time, not a copy each.
    const pieces: string[] = [];
    let at = 0;
    for (const span of spans) {
      pieces.push(out.slice(at, span.start), `[redacted ${p.kind}]`);
      at = span.end;
    }
    pieces.push(out.slice(at));
    out = pieces.join('');
    lower = out.toLowerCase();
    redactions += spans.length;
  }
  const secretTokens = longTokens(out).filter(([a, b]) => looksHighEntropy(out.slice(a, b)));
  if (secretTokens.length) {
    const pieces: string[] = [];
    let at = 0;
    for (const [a, b] of secretTokens) {
      pieces.push(out.slice(at, a), '[redacted high-entropy]');
      at = b;
    }
    pieces.push(out.slice(at));
    out = pieces.join('');
    redactions += secretTokens.length;
  }
  return { text: out, redactions };
}

/** The secret spans of one pattern in `text`: the `v` group when it has one, else the whole match. */
function matchesOf(p: SecretPattern, text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  for (const m of text.matchAll(spanRegex(p))) {
    const value = m.indices?.groups?.v;
    if (value && p.accept && !p.accept(m.groups!.v!)) continue;
    const [start, end] = value ?? m.indices![0]!;
    spans.push({ start, end });
  }
  return spans;
}

const spanRegexes = new Map<SecretPattern, RegExp>();
/** The pattern with the global and match-indices flags, built once. */
function spanRegex(p: SecretPattern): RegExp {
  let re = spanRegexes.get(p);
  if (!re) {
    re = new RegExp(p.pattern.source, `${p.pattern.flags.replace(/[gd]/g, '')}gd`);
    spanRegexes.set(p, re);
  }
  return re;
}
