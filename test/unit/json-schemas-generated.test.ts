import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { liveJsonSchemas } from '../../src/main/api/json-schemas-live';
import { generatedToolList, inputJsonSchema } from '../../src/main/api/json-schemas';
import { commandNames } from '../../src/shared/contract';
import { GENERATED_JSON_SCHEMAS } from '../../scripts/generate';

/**
 * The CLI's flags and the MCP tools/list answer come from a generated file, so nothing converts
 * zod schemas at start-up. This fails when the contract or the tool set changed and the file was
 * not regenerated: run `npm run generate` and commit the file.
 */
describe('json-schemas.generated.json', () => {
  it('matches the contract and the agent tools as they are now', () => {
    const committed = JSON.parse(readFileSync(GENERATED_JSON_SCHEMAS, 'utf8'));
    expect(committed, 'stale: run `npm run generate` and commit the file').toEqual(liveJsonSchemas());
  });

  it('is what the CLI and the MCP server read', () => {
    const live = liveJsonSchemas();
    for (const name of commandNames) expect(inputJsonSchema(name), name).toEqual(live.inputs[name]);
    expect(generatedToolList()).toEqual(live.tools);
    expect(generatedToolList().length).toBeGreaterThan(10);
  });
});
