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
  | 'high-entropy';

interface SecretPattern {
  kind: SecretKind;
  pattern: RegExp;
}

// Ordered from most to least specific so a provider key is reported as such, not as "entropy".
const PATTERNS: SecretPattern[] = [
  { kind: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/i },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/ },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{12,}/ },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/ },
  { kind: 'gitlab-token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b/ },
  { kind: 'aws-secret-key', pattern: /\baws_?secret_?access_?key\b\s*[:=]\s*\S+/i },
  { kind: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  { kind: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'stripe-key', pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { kind: 'npm-token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: 'bearer-token', pattern: /\b(?:bearer|token)\s+[A-Za-z0-9._~+/-]{20,}=*/i },
  {
    // scheme://user:password@host: the password part is non-empty and not a placeholder variable.
    kind: 'connection-string',
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]+:(?!\$\{|\*+@|<)[^\s@/]+@[^\s/]+/i,
  },
  {
    // The reference's words: "password: x", "api_key=x", "access token: x", whatever the value.
    kind: 'credential-assignment',
    pattern: /\b(?:passwords?|passwd|passphrase|api[ _-]?key|apikey|access[ _-]?token|accesstoken)\b\s*[:=]\s*\S+/i,
  },
  {
    // Vaguer words ("secret: ...", "token=...") only with a value that looks machine-made.
    kind: 'credential-assignment',
    pattern:
      /\b(?:secret|client[ _-]?secret|auth[ _-]?token|refresh[ _-]?token|private[ _-]?key|token|pwd)\b\s*[:=]\s*["']?(?=[^\s"']*[0-9_+/=!@#$%^&*-])[^\s"']{8,}/i,
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

const TOKEN = /[A-Za-z0-9+/_=-]{24,}/g;

export interface SecretMatch {
  kind: SecretKind;
}

/** The first kind of secret found in `text`, or null. The match itself is never returned. */
export function findSecret(text: string): SecretMatch | null {
  for (const { kind, pattern } of PATTERNS) if (pattern.test(text)) return { kind };
  for (const token of text.match(TOKEN) ?? []) if (looksHighEntropy(token)) return { kind: 'high-entropy' };
  return null;
}

export const looksSensitive = (text: string): boolean => findSecret(text) !== null;

/**
 * `text` with every secret replaced by `[redacted <kind>]`, e.g. before a transcript leaves the
 * machine for a model endpoint. Returns how many spans were replaced, never what they were.
 */
export function redactSecrets(text: string): { text: string; redactions: number } {
  let redactions = 0;
  let out = text;
  for (const { kind, pattern } of PATTERNS) {
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g');
    out = out.replace(global, () => (redactions++, `[redacted ${kind}]`));
  }
  out = out.replace(TOKEN, (token) => (looksHighEntropy(token) ? (redactions++, '[redacted high-entropy]') : token));
  return { text: out, redactions };
}
