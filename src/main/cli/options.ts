import { Option } from 'commander';
import type { FieldSpec } from './fields';

/** Commander stores `--session-id` as `sessionId`; the same rule finds a typed flag's value. */
export const attributeOf = (flag: string): string => flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function placeholder(spec: FieldSpec): string {
  switch (spec.kind) {
    case 'number':
      return '<n>';
    case 'time':
      return '<time>';
    case 'json':
      return '<json>';
    case 'list':
      return spec.choices ? `<${spec.choices.join(',')}>` : '<a,b>';
    case 'choice': {
      const choices = spec.choices!.join('|');
      return choices.length <= 32 ? `<${choices}>` : '<value>';
    }
    default:
      return spec.field === 'id' || spec.field.endsWith('Id') ? '<id>' : '<text>';
  }
}

/** Repeatable and comma-separated: `--sources facts --sources wiki` = `--sources facts,wiki`. */
const collectList = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

/** `--enabled` alone is true; `--enabled false` is false; anything else goes to the contract as typed. */
const parseTristate = (value: string): unknown => (value === 'true' ? true : value === 'false' ? false : value);

function helpText(spec: FieldSpec): string {
  const parts = [spec.description];
  if (spec.positional) parts.push(`Also the words after the options, or --${spec.flag}-file.`);
  if (spec.aliases.length) parts.push(`Also ${spec.aliases.map((a) => `--${a}`).join(', ')}.`);
  if (spec.required) parts.push('Required.');
  else if (spec.defaultValue !== undefined) parts.push(`Default: ${JSON.stringify(spec.defaultValue)}.`);
  return parts.join(' ');
}

/** One flag name's option, shaped by the field's kind. */
function optionFor(spec: FieldSpec, name: string, description: string): Option {
  if (spec.kind === 'switch') return new Option(`--${name}`, description);
  if (spec.kind === 'tristate') return new Option(`--${name} [true|false]`, description).argParser(parseTristate);
  const option = new Option(`--${name} ${placeholder(spec)}`, description);
  return spec.kind === 'list' ? option.argParser(collectList) : option;
}

/**
 * The commander options of one field: its flag, the short names (hidden, listed in the flag's
 * help), `--no-x` where the default is true, the file twin and fixed-value switches. Two names
 * for one field given together are refused by commander as conflicting.
 */
export function optionsFor(spec: FieldSpec): Option[] {
  const primary = attributeOf(spec.flag);
  const options = [optionFor(spec, spec.flag, helpText(spec))];
  for (const alias of spec.aliases) {
    options.push(optionFor(spec, alias, `Same as --${spec.flag}.`).hideHelp().conflicts(primary));
  }
  if (spec.kind === 'tristate' || (spec.kind === 'switch' && spec.defaultValue === true)) {
    options.push(new Option(`--no-${spec.flag}`, `Set ${spec.flag} to false.`));
  }
  if (spec.fromFile) {
    const file = `${spec.flag}-file`;
    const what = spec.kind === 'json' ? 'JSON' : 'text';
    options.push(
      new Option(`--${file} <file>`, `Read --${spec.flag} from a file of ${what} ("-" = stdin).`).conflicts(primary),
    );
    for (const alias of spec.fileAliases) {
      options.push(new Option(`--${alias} <file>`, `Same as --${file}.`).hideHelp().conflicts(attributeOf(file)));
    }
  }
  for (const v of spec.valueFlags) options.push(new Option(`--${v.flag}`, v.description).conflicts(primary));
  return options;
}
