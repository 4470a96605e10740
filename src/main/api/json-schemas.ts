import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { contract, type CommandName } from '../../shared/contract';
import generated from './json-schemas.generated.json';

/**
 * The contract's input schemas as JSON Schema (what the CLI builds its flags from) and the MCP
 * tool list (what `tools/list` answers). zod's JSON-Schema conversion of every tool's schemas was
 * the largest part of an MCP server's start-up and a visible share of every CLI command's, so
 * both are computed once, by `npm run generate`, into json-schemas.generated.json; a test fails
 * when the contract changes and the file was not regenerated. Calls are still validated by the
 * contract's zod schemas.
 */
export type JsonSchema = Record<string, unknown>;

export interface GeneratedJsonSchemas {
  inputs: Record<string, JsonSchema>;
  tools: Tool[];
}

const schemas = generated as unknown as GeneratedJsonSchemas;

/** JSON Schema of what a caller may send (defaults optional), without the dialect line. */
export function liveJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return json;
}

/**
 * A contract command's input as JSON Schema: from the generated file, or computed for a command
 * added since it was last generated (the test asks for `npm run generate` all the same).
 */
export const inputJsonSchema = (name: CommandName): JsonSchema =>
  schemas.inputs[name] ?? liveJsonSchema(contract[name].input, 'input');

/** The MCP tool list (from the generated file). */
export const generatedToolList = (): Tool[] => schemas.tools;
