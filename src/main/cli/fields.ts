import type { CommandName } from '../../shared/contract';
import { inputJsonSchema } from '../api/json-schemas';
import { CLI_DEFAULTS, FLAG_ALIASES, VALUE_FLAGS } from './aliases';

/**
 * How one contract input field is given on the command line, derived from the command's input
 * schema (as JSON Schema, the same one the MCP tools advertise, generated from the contract by
 * `npm run generate`):
 * - switch: a boolean with a default (`--dry-run`; `--no-x` too where the default is true);
 * - tristate: a boolean without one (`--enabled`, `--enabled false`, `--no-enabled`);
 * - number: text that reads as a number becomes one, and the contract validates it;
 * - time: epoch milliseconds or ISO-8601 (all digits = a number);
 * - list: repeatable and comma-separated (`--sources facts,wiki`);
 * - json: JSON text, or a file of it (`--checkpoint-file F`);
 * - choice / text: as typed.
 * A command's required long free text (a message, a query) may also come as the words after the
 * options, or from a file (`--content-file F`, `-` for stdin).
 */
export type FieldKind = 'switch' | 'tristate' | 'number' | 'time' | 'list' | 'json' | 'choice' | 'text';

export interface FieldSpec {
  field: string;
  /** The generated flag, without dashes: camelCase field -> kebab-case. */
  flag: string;
  aliases: string[];
  /** Other names of the file twin (`--file` for `--content-file`). */
  fileAliases: string[];
  kind: FieldKind;
  required: boolean;
  /** May be given as the words after the options. */
  positional: boolean;
  /** Has a `--<flag>-file PATH` twin. */
  fromFile: boolean;
  description: string;
  choices?: string[];
  defaultValue?: unknown;
  /** The CLI's own default, sent when the field is not given (the contract's applies otherwise). */
  cliDefault?: unknown;
  /** Switches that set this field to a fixed value (`--once` for drain=false). */
  valueFlags: readonly { flag: string; value: unknown; description: string }[];
}

type JsonSchema = {
  type?: string;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  maxLength?: number;
  $ref?: string;
};

/** Free text at least this long may be typed as words; shorter required strings are ids and paths. */
const LONG_TEXT = 2000;

export const kebab = (field: string): string => field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function kindOf(p: JsonSchema): FieldKind {
  if (p.anyOf) {
    const types = p.anyOf.map((a) => a.type);
    const numeric = types.includes('integer') || types.includes('number');
    return numeric && types.includes('string') && types.length === 2 ? 'time' : 'json';
  }
  switch (p.type) {
    case 'boolean':
      return p.default === undefined ? 'tristate' : 'switch';
    case 'integer':
    case 'number':
      return 'number';
    case 'string':
      return p.enum ? 'choice' : 'text';
    case 'array':
      return p.items?.type === 'string' ? 'list' : 'json';
    default:
      return 'json';
  }
}

const isLongText = (p: JsonSchema, required: boolean) =>
  required && p.type === 'string' && !p.enum && (p.maxLength === undefined || p.maxLength >= LONG_TEXT);

const cache = new Map<CommandName, FieldSpec[]>();

/** The command's fields as CLI flags, in the contract's order. */
export function fieldSpecs(name: CommandName): FieldSpec[] {
  const cached = cache.get(name);
  if (cached) return cached;
  const schema = inputJsonSchema(name) as JsonSchema;
  const required = new Set(schema.required ?? []);
  const cliDefaults = CLI_DEFAULTS[name] ?? {};
  let positionalTaken = false;
  const specs = Object.entries(schema.properties ?? {}).map(([field, p]): FieldSpec => {
    const isRequired = required.has(field);
    const positional = !positionalTaken && isLongText(p, isRequired);
    positionalTaken ||= positional;
    const kind = kindOf(p);
    const cliDefault = cliDefaults[field];
    const defaultValue = cliDefault ?? p.default;
    return {
      field,
      flag: kebab(field),
      aliases: [],
      fileAliases: [],
      kind: kind === 'tristate' && defaultValue !== undefined ? 'switch' : kind,
      required: isRequired,
      positional,
      fromFile: positional || kind === 'json',
      description: p.description ?? '',
      choices: (p.enum ?? p.items?.enum)?.map(String),
      defaultValue,
      cliDefault,
      valueFlags: VALUE_FLAGS[field] ?? [],
    };
  });
  assignAliases(specs);
  cache.set(name, specs);
  return specs;
}

/** Adds the short names people already type, unless one would clash with another flag of the command. */
function assignAliases(specs: FieldSpec[]): void {
  const taken = new Set(specs.flatMap((s) => [s.flag, ...(s.fromFile ? [`${s.flag}-file`] : [])]));
  const claim = (names: readonly string[] | undefined, into: string[]) => {
    for (const name of names ?? []) {
      if (taken.has(name)) continue;
      taken.add(name);
      into.push(name);
    }
  };
  for (const spec of specs) {
    claim(FLAG_ALIASES[spec.flag], spec.aliases);
    if (spec.fromFile) claim(FLAG_ALIASES[`${spec.flag}-file`], spec.fileAliases);
  }
  for (const spec of specs) {
    const free = spec.valueFlags.filter((v) => !taken.has(v.flag));
    free.forEach((v) => taken.add(v.flag));
    spec.valueFlags = free;
  }
}
