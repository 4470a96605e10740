import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The layering rule (eslint-rules/layering.mjs), run through the repository's own ESLint config
 * on synthetic sources given the path they would have: a bad import placed in the engine fails
 * lint, the same import from an allowed place passes. `npm run lint` runs the rule on the tree.
 */
const ROOT = path.resolve(__dirname, '../..');
let eslint: ESLint;

async function layeringErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === 'evoflux/layering').map((m) => `${file}:${m.line} ${m.message}`);
}

describe('layering lint rule', () => {
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  it('refuses a store module importing memory, however the path is spelled', async () => {
    const errors = await layeringErrors(
      'src/main/store/bad-import.ts',
      "import { recall } from '../memory/recall';\nexport const r = recall;\n",
    );
    expect(errors).toEqual([
      "src/main/store/bad-import.ts:1 src/main/store is the bottom layer and may not import src/main/memory (imports '../memory/recall').",
    ]);
    expect(
      await layeringErrors('src/main/store/migrations/bad.ts', "export * from '../../memory/text';\n"),
    ).toHaveLength(1);
    expect(
      await layeringErrors('src/main/memory/fine.ts', "import { openWriter } from '../store/db';\nopenWriter;\n"),
    ).toEqual([]);
  });

  it('refuses the engine importing a door or the renderer', async () => {
    const errors = await layeringErrors(
      'src/main/dream/bad-import.ts',
      [
        "import { handlers } from '../commands/facts';",
        "const cli = require('../cli');",
        "void import('../../renderer/src/App');",
        'export { handlers, cli };',
      ].join('\n'),
    );
    expect(errors).toEqual([
      "src/main/dream/bad-import.ts:1 src/main/dream is engine code and may not import the door src/main/commands; doors call the engine (imports '../commands/facts').",
      "src/main/dream/bad-import.ts:2 src/main/dream is engine code and may not import the door src/main/cli; doors call the engine (imports '../cli').",
      "src/main/dream/bad-import.ts:3 src/main/dream is engine code and may not import the renderer (imports '../../renderer/src/App').",
    ]);
    // A door importing the engine is the intended direction.
    expect(await layeringErrors('src/main/commands/fine.ts', "export * from '../memory/recall';\n")).toEqual([]);
  });

  it("keeps 'electron' in the shell and the preload", async () => {
    const code = "import { app } from 'electron';\nexport const a = app;\n";
    expect(await layeringErrors('src/main/wiki/bad-import.ts', code)).toEqual([
      "src/main/wiki/bad-import.ts:1 Only src/main/index.ts and src/preload/ may import 'electron' (everything else must run under plain Node).",
    ]);
    expect(await layeringErrors('src/main/api/bad-import.ts', code)).toHaveLength(1);
    expect(await layeringErrors('src/main/index.ts', code)).toEqual([]);
    expect(await layeringErrors('src/preload/index.ts', code)).toEqual([]);
  });
});
