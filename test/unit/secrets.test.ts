import { describe, expect, it } from 'vitest';
import { findSecret, shannonEntropy } from '../../src/main/memory/secrets';

// Built at run time so this file holds no literal that a secret scanner would flag.
const rnd = (alphabet: string, n: number, seed = 7) => {
  let x = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out += alphabet[x % alphabet.length];
  }
  return out;
};
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

describe('secret patterns: every kind is caught', () => {
  const cases: [string, string][] = [
    ['private-key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow...'],
    ['private-key', 'the key is -----BEGIN OPENSSH PRIVATE KEY----- b3Blbn'],
    ['private-key', '-----begin private key-----'],
    ['anthropic-key', `use sk-ant-api03-${rnd(ALNUM, 40)}`],
    ['openai-key', `the key sk-${rnd(ALNUM, 20)} works`],
    ['openai-key', `OPENAI=sk-proj-${rnd(ALNUM, 30)}`],
    ['github-token', `token ghp_${rnd(ALNUM, 36)}`],
    ['github-token', `github_pat_${rnd(ALNUM, 40)}`],
    ['gitlab-token', `glpat-${rnd(ALNUM, 20)}`],
    ['aws-access-key', `AKIA${rnd(UPPER_DIGITS, 16)} is the access key id`],
    ['aws-secret-key', `aws_secret_access_key = ${rnd(ALNUM, 40)}`],
    ['google-api-key', `AIza${rnd(ALNUM, 35)}`],
    ['slack-token', `xoxb-${rnd('0123456789', 12)}-${rnd(ALNUM, 24)}`],
    ['stripe-key', `sk_live_${rnd(ALNUM, 24)}`],
    ['npm-token', `npm_${rnd(ALNUM, 36)}`],
    ['jwt', `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${rnd(ALNUM, 30)}`],
    ['bearer-token', `send Authorization: Bearer ${rnd(ALNUM, 32)}`],
    ['connection-string', 'DATABASE_URL is postgres://app:s3cretPass@db.internal:5432/app'],
    ['connection-string', 'mongodb+srv://admin:hunter2@cluster0.example.net'],
    ['credential-assignment', 'password: hunter2'],
    ['credential-assignment', 'The admin passwd=letmein'],
    ['credential-assignment', 'api_key = abc'],
    ['credential-assignment', 'API key: 1234'],
    ['credential-assignment', 'access token: foo'],
    ['credential-assignment', 'client_secret: a8f-99x_longvalue'],
    ['high-entropy', `the signing salt is ${rnd(ALNUM, 32, 99)}`],
  ];
  for (const [kind, text] of cases) {
    it(`${kind}: ${text.slice(0, 24)}…`, () => expect(findSecret(text)).toEqual({ kind }));
  }
});

describe('ordinary durable facts are not secrets', () => {
  const clean = [
    'User prefers tabs over spaces.',
    'The password policy requires 12 characters.',
    'Rotate the API key every 90 days.',
    'We use Conventional Commits.',
    'Pin the dependency to commit 3f2a9c1d4e5b6a7980c1d2e3f4a5b6c7d8e9f001.',
    'Session 01962a6b-5f3e-7c41-9a2d-3b8e4f7a1c55 is the lead.',
    'The helper is called createExtractionServiceForTesting.',
    'The database is postgres://localhost:5432/app without credentials.',
    'Tokens are refreshed by the auth middleware.',
    'The secret to fast builds is caching.',
    'Risk-assessment documents live in docs/risk.',
    'Use the env var ${DATABASE_PASSWORD} from the vault.',
  ];
  for (const text of clean) it(text, () => expect(findSecret(text)).toBeNull());
});

describe('entropy', () => {
  it('is 0 for a repeated character and log2(n) for n distinct ones', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });
  it('the match is never part of the result', () => {
    const key = `sk-${rnd(ALNUM, 24)}`;
    expect(JSON.stringify(findSecret(`key ${key}`))).not.toContain(key);
  });
});

describe('high-entropy detection over many random tokens', () => {
  it('flags random base64/alnum credentials of 24+ characters and spares identifiers and digests', async () => {
    const { randomBytes } = await import('node:crypto');
    let flagged = 0;
    for (let i = 0; i < 200; i++) if (findSecret(`value ${randomBytes(24).toString('base64url')}`)) flagged++;
    expect(flagged).toBeGreaterThanOrEqual(190);
    for (let i = 0; i < 200; i++) expect(findSecret(`commit ${randomBytes(20).toString('hex')}`)).toBeNull();
    for (const id of [
      'Base64EncodedStringValue2024',
      'MyVeryLongComponentName2Props',
      'useExtractionStatusQueryV2Hook',
    ]) {
      expect(findSecret(`the ${id} helper`)).toBeNull();
    }
  });
});

describe('redaction before a transcript leaves the machine', () => {
  it('replaces every secret span with its kind and keeps the rest', async () => {
    const { redactSecrets } = await import('../../src/main/memory/secrets');
    const key = `sk-${rnd(ALNUM, 24)}`;
    const r = redactSecrets(`Use ${key} with password: hunter2 against postgres://app:pw123@db/app please.`);
    expect(r.text).not.toContain(key);
    expect(r.text).not.toContain('hunter2');
    expect(r.text).not.toContain('pw123');
    expect(r.text).toMatch(
      /^Use \[redacted openai-key\] with \[redacted credential-assignment\] against \[redacted connection-string\]\/app please\.$/,
    );
    expect(r.redactions).toBe(3);
    expect(redactSecrets('Nothing secret here.')).toEqual({ text: 'Nothing secret here.', redactions: 0 });
  });
});

describe('credentials written the way people write them', () => {
  const hits: [string, string][] = [
    ['credential-assignment', 'password：hunter2'],
    ['credential-assignment', 'Password ： hunter2'],
    ['credential-assignment', 'passwd﹕letmein'],
    ['credential-assignment', 'api key∶ abc123'],
    ['credential-assignment', 'access token꞉ foo'],
    ['credential-assignment', 'password＝hunter2'],
    ['credential-statement', 'my password is swordfish'],
    ['credential-statement', 'My password is "correct horse"'],
    ['credential-statement', 'our wifi password is Tr0ub4dor&3'],
    ['credential-statement', 'the password for prod is hunter2'],
    ['credential-statement', 'the passphrase was blue-moon-42'],
    ['pin-code', 'the PIN is 1234'],
    ['pin-code', 'my pin is 482913'],
    ['pin-code', 'PIN: 0000'],
    ['pin-code', 'card PIN 4821'],
    ['pin-code', 'pin code：7731'],
    ['pin-code', 'Pin number = 99120'],
  ];
  for (const [kind, text] of hits) it(`${kind}: ${text}`, () => expect(findSecret(text)).toEqual({ kind }));

  const clean = [
    'The password is required for login.',
    'The password is stored in the vault.',
    'My password is too short for the new policy.',
    'The password is at least 12 characters.',
    'The password was reset yesterday.',
    'Our password manager is 1Password.',
    'The PIN must be 4 to 8 digits.',
    'Pin the dependency to 1.2.3.',
    'Pin 2 of the header carries 3.3 V.',
    'Use port 8080 for the dev server.',
    'The build runs on pin-compatible boards.',
    'Released at 12:30 UTC; see RFC 3339.',
    'Ratio 16∶9 screens only.',
    'Digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 is pinned.',
    'Request 123e4567-e89b-12d3-a456-426614174000 failed.',
    'The type is PinnedPackageVersionResolver2.',
  ];
  for (const text of clean) it(`not a secret: ${text}`, () => expect(findSecret(text)).toBeNull());

  it('redaction keeps the sentence and hides only the value', async () => {
    const { redactSecrets } = await import('../../src/main/memory/secrets');
    expect(redactSecrets('Hi, my password is swordfish, thanks').text).toBe(
      'Hi, my password is [redacted credential-statement], thanks',
    );
    expect(redactSecrets('the PIN is 1234.').text).toBe('the PIN is [redacted pin-code].');
    expect(redactSecrets('password：hunter2 ok').text).toBe('[redacted credential-assignment] ok');
  });
});
