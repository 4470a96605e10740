import type { z } from 'zod';

/**
 * One command of the contract. Every door (IPC, HTTP, MCP, CLI) validates `input` with the
 * same schema and returns data shaped by `output`; no door holds logic of its own.
 */
export interface CommandSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  description: string;
  input: I;
  output: O;
  /** Changes stored state (HTTP uses POST for these; read-only commands also answer GET). */
  mutates: boolean;
}

/** A command as written in its area's file: the schemas are built by functions, on first use. */
export interface CommandDefinition<I extends z.ZodType, O extends z.ZodType> {
  description: string;
  input: () => I;
  output: () => O;
  mutates: boolean;
}

/**
 * Builds a command's schemas when a door first reads them, not when the contract loads: a CLI
 * run validates one command, and building all of them cost more than the rest of its start-up.
 */
export function defineCommand<I extends z.ZodType, O extends z.ZodType>(
  definition: CommandDefinition<I, O>,
): CommandSpec<I, O> {
  let input: I | undefined;
  let output: O | undefined;
  return {
    description: definition.description,
    mutates: definition.mutates,
    get input() {
      return (input ??= definition.input());
    },
    get output() {
      return (output ??= definition.output());
    },
  };
}

export type CommandMap = Record<string, CommandSpec>;
export type InputOf<C extends CommandSpec> = z.input<C['input']>;
export type ParsedInputOf<C extends CommandSpec> = z.output<C['input']>;
export type OutputOf<C extends CommandSpec> = z.output<C['output']>;
