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

export const defineCommand = <I extends z.ZodType, O extends z.ZodType>(spec: CommandSpec<I, O>) => spec;

export type CommandMap = Record<string, CommandSpec>;
export type InputOf<C extends CommandSpec> = z.input<C['input']>;
export type ParsedInputOf<C extends CommandSpec> = z.output<C['input']>;
export type OutputOf<C extends CommandSpec> = z.output<C['output']>;
