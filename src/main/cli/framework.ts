import type { Option } from 'commander';
import type { Engine } from '../engine';
import type { CommandName, Contract, OutputOf } from '../../shared/contract';

export interface CliContext {
  /** Opens the engine on first use so `--help` and usage errors never touch a data home. */
  engine(): Engine;
  /** The data home: --home, else EVOFLUX_HOME, else the platform's app data folder. */
  readonly home: string;
  readonly json: boolean;
  out(text: string): void;
  err(text: string): void;
  /** Commands that keep running (serve, mcp) resolve only when asked to stop. */
  signal: AbortSignal;
}

export interface CliResult {
  /** Printed as JSON with --json. */
  data: unknown;
  text: string;
}

/**
 * How the CLI shows one contract command's output to a person (with --json the output itself is
 * printed). A command without a view is printed as YAML.
 */
export interface CliView<N extends CommandName> {
  text?(output: OutputOf<Contract[N]>): string;
  /** Turns an output that reports a failure into an error (exit 1), e.g. a failed extraction run. */
  check?(output: OutputOf<Contract[N]>): void;
  /** The output is printed even when check() fails it (a health report that says what is broken). */
  printFailed?: boolean;
}

export type CliViews = { [N in CommandName]?: CliView<N> };

/** A command of the CLI that is not a contract command (serve, mcp) or combines several (sessions show). */
export interface DoorCommand {
  path: string[];
  summary: string;
  /** Contract fields it takes, offered as the same generated flags as the commands they come from. */
  fields?: { command: CommandName; field: string }[];
  /** Options of its own. */
  options?(): Option[];
  run(
    ctx: CliContext,
    input: Record<string, unknown>,
    options: Record<string, unknown>,
  ): Promise<CliResult | null> | CliResult | null;
}

export const fmtTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + 'Z';

export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}
