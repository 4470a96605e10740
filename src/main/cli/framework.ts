import type { ParseArgsConfig } from 'node:util';
import type { Engine } from '../engine';
import { dispatch } from '../commands/dispatch';
import { OWNER } from '../commands/principal';
import type { CommandName, Contract, OutputOf } from '../../shared/contract';
import { invalid } from '../../shared/errors';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | string[] | undefined>;

export interface CliContext {
  /** Opens the engine on first use so `--help` never touches the database. */
  engine(): Engine;
  home: string;
  json: boolean;
  out(text: string): void;
  err(text: string): void;
  /** Commands that keep running (serve, mcp) resolve only when asked to stop. */
  signal: AbortSignal;
}

export interface CliResult {
  data: unknown;
  text: string;
}

export interface CliCommand {
  path: string[];
  summary: string;
  /** Shown after the command path in help, e.g. `--session S [--dry-run]`. */
  usage: string;
  options?: OptionSpec;
  run(ctx: CliContext, values: Values, positionals: string[]): Promise<CliResult | null> | CliResult | null;
}

/** Runs one contract command through the same dispatcher every other door uses. */
export async function call<N extends CommandName>(
  ctx: CliContext,
  name: N,
  input: Record<string, unknown>,
): Promise<OutputOf<Contract[N]>> {
  const clean = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  return dispatch(ctx.engine(), name, clean, OWNER) as Promise<OutputOf<Contract[N]>>;
}

export function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function requireStr(values: Values, name: string, field = name): string {
  const v = str(values, name);
  if (v === undefined || v.trim() === '') throw invalid(field, `--${name} is required`);
  return v;
}

export function int(values: Values, name: string, field = name): number | undefined {
  const v = str(values, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw invalid(field, `--${name} must be a whole number (got "${v}")`);
  return Number(v);
}

export function flag(values: Values, name: string): boolean | undefined {
  return values[name] === true ? true : undefined;
}

/** The text after the options, joined: `recall --session S some words`. */
export function textArg(positionals: string[], field: string): string {
  const text = positionals.join(' ').trim();
  if (!text) throw invalid(field, 'text is required');
  return text;
}

export const fmtTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + 'Z';

export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}
