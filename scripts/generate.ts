/**
 * `npm run generate`: writes the files generated from the contract (today
 * src/main/api/json-schemas.generated.json: the contract's input JSON Schemas and the MCP tool
 * list). Run it after changing a command's schema or an agent tool; a test fails until you do.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { liveJsonSchemas } from '../src/main/api/json-schemas-live';

export const GENERATED_JSON_SCHEMAS = path.join(__dirname, '..', 'src', 'main', 'api', 'json-schemas.generated.json');

if (require.main === module) {
  writeFileSync(GENERATED_JSON_SCHEMAS, JSON.stringify(liveJsonSchemas(), null, 2) + '\n');
  console.log(`wrote ${path.relative(process.cwd(), GENERATED_JSON_SCHEMAS)}`);
}
