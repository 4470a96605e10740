import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setDefaultNativeBinding } from '../../src/main/store/db';
import { openTestEngine, tempHome } from '../helpers/home';

const NODE_BINDING = path.resolve(__dirname, '../../node_modules/better-sqlite3/build/Release/better_sqlite3.node');

/**
 * The Electron shell sets a default native binding once; the writer and every read-lane worker
 * must load that one (Node's build would not load under Electron's ABI).
 */
describe('the default native binding reaches the read lane', () => {
  afterEach(() => setDefaultNativeBinding(undefined));

  it('workers load the binding the shell set, not the package default', async () => {
    const scratch = tempHome('evoflux-binding-');
    const binding = path.join(scratch.dir, 'shell-binding.node');
    copyFileSync(NODE_BINDING, binding);
    setDefaultNativeBinding(binding);
    const t = openTestEngine();
    try {
      const s = await t.run('sessions.create', { projectId: 'p' });
      await t.run('facts.add', { sessionId: s.id, scope: 'project', text: 'Deploy the billing service with Helm' });
      // The writer has loaded the binding; workers start on first use. With the file gone, a
      // worker that was told to use it fails and says so; one using the package default would not.
      rmSync(binding);
      await expect(t.run('memory.recall', { sessionId: s.id, text: 'how do we deploy billing' })).rejects.toThrow(
        /shell-binding\.node/,
      );
    } finally {
      await t.close();
      scratch.cleanup();
    }
  });
});
