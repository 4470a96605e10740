import { readFileSync } from 'node:fs';
import type { FieldSpec } from './fields';
import { attributeOf } from './options';
import { invalid } from '../../shared/errors';

/** A contract command's input as typed, and for each field the flag it came from (for errors). */
export interface GivenInput {
  input: Record<string, unknown>;
  /** field -> how it was given (`--session`, `--content-file`, `the words after the options`). */
  givenAs: Map<string, string>;
}

export const WORDS = 'the words after the options';

/**
 * Text that reads as a number becomes one; the contract decides whether it is a good one. Text
 * that does not is passed on as typed, so the contract's own message names what is wrong.
 */
function toValue(spec: FieldSpec, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  switch (spec.kind) {
    case 'number':
      return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value.trim()) ? Number(value) : value;
    case 'time':
      return /^\d+$/.test(value.trim()) ? Number(value) : value;
    case 'json':
      try {
        return JSON.parse(value);
      } catch (e) {
        throw invalid(spec.field, `is not valid JSON (${(e as Error).message})`);
      }
    default:
      return value;
  }
}

function readText(spec: FieldSpec, file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw invalid(spec.field, `cannot read ${file === '-' ? 'stdin' : file}: ${(e as Error).message}`);
  }
}

/** A typed value, or the file it is to be read from. */
type Found = { value: unknown; as: string; file?: string } | undefined;

/** The field's value from whichever of its flags was typed; commander refuses two of them together. */
function fromFlags(spec: FieldSpec, options: Record<string, unknown>): Found {
  for (const name of [spec.flag, ...spec.aliases]) {
    const value = options[attributeOf(name)];
    if (value !== undefined) return { value, as: `--${name}` };
  }
  for (const v of spec.valueFlags) {
    if (options[attributeOf(v.flag)] === true) return { value: v.value, as: `--${v.flag}` };
  }
  if (!spec.fromFile) return undefined;
  for (const name of [`${spec.flag}-file`, ...spec.fileAliases]) {
    const file = options[attributeOf(name)];
    if (typeof file === 'string') return { value: undefined, as: `--${name}`, file };
  }
  return undefined;
}

function fromWords(spec: FieldSpec, words: string[] | undefined, flagged: Found): Found {
  if (!spec.positional || !words?.length) return flagged;
  if (flagged) throw invalid(spec.field, `is given twice (as ${WORDS} and as ${flagged.as}); give one`);
  return { value: words.join(' '), as: WORDS };
}

/**
 * Builds a command's input from commander's parsed options and the positional words, recording
 * in `given.givenAs` how each field came (filled as it goes, so an error can name the flag).
 */
export function fillInput(
  given: GivenInput,
  specs: readonly FieldSpec[],
  options: Record<string, unknown>,
  words?: string[],
): GivenInput {
  for (const spec of specs) {
    const found = fromWords(spec, words, fromFlags(spec, options));
    if (found) {
      given.givenAs.set(spec.field, found.as);
      const value = found.file === undefined ? found.value : readText(spec, found.file);
      given.input[spec.field] = toValue(spec, value);
    } else if (spec.cliDefault !== undefined) {
      given.input[spec.field] = spec.cliDefault;
    } else if (spec.required) {
      throw invalid(spec.field, spec.positional ? `is required (or give it as ${WORDS})` : 'is required');
    }
  }
  return given;
}

export const emptyInput = (): GivenInput => ({ input: {}, givenAs: new Map() });
