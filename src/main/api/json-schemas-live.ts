import { commandNames, contract } from '../../shared/contract';
import { availableTools, toolDefinition } from './mcp-tools';
import { liveJsonSchema, type GeneratedJsonSchemas, type JsonSchema } from './json-schemas';

/**
 * What json-schemas.generated.json must hold, computed from the contract and the tool set now:
 * `npm run generate` writes it, and a test compares it with the committed file.
 */
export function liveJsonSchemas(): GeneratedJsonSchemas {
  const inputs: Record<string, JsonSchema> = {};
  for (const name of commandNames) inputs[name] = liveJsonSchema(contract[name].input, 'input');
  return { inputs, tools: availableTools().map(toolDefinition) };
}
