/**
 * V8 keeps a script's source in memory for as long as the script lives, one byte per character
 * when every character is Latin-1 and two bytes for all of them as soon as one is not: an em dash
 * in a comment doubled the main bundle's resident sources (3.6 MB on the main thread of an idle
 * server instead of 1.8). The build writes every character above U+00FF as a \u escape, which
 * stands for the same character in strings, templates, regular expressions and identifiers, and
 * for nothing in comments. Where the source already escaped the character (a backslash before
 * it: an identity escape), that backslash is dropped, as the \u escape stands for the character.
 * Raw template strings (String.raw) would see the escape itself: the bundle's own do not hold
 * such characters, and test/unit/bundle-deps.test.ts checks the output is Latin-1 throughout.
 */
export function escapeBeyondLatin1(code: string): string {
  return code.replace(/(\\*)([\u0100-\uffff])/g, (_, slashes: string, c: string) => {
    const escape = `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    return (slashes.length % 2 === 1 ? slashes.slice(1) : slashes) + escape;
  });
}
