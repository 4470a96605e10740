import { existsSync, linkSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { ensurePrivateDir } from '../private-fs';
import path from 'node:path';
import { writeFileAtomicallySync } from './atomic';
import { SECTIONS } from './layout';

// Used when resources/ is not shipped next to the code (a stripped build): seeding never fails.
const FALLBACK_SEED: Record<string, string> = {
  'USER.md': 'identity: {}\npreferences: []\nworking_style: []\nprojects: []\n',
  'INDEX.md': '# Wiki Index\n',
};

/** resources/wiki-seed from the source tree (src/main/wiki), the built main (out/main) or a packaged app. */
export function seedDir(): string | null {
  const candidates = [
    path.resolve(__dirname, '../../../resources/wiki-seed'),
    path.resolve(__dirname, '../../resources/wiki-seed'),
    ...(typeof (process as { resourcesPath?: string }).resourcesPath === 'string'
      ? [path.join((process as { resourcesPath?: string }).resourcesPath!, 'wiki-seed')]
      : []),
  ];
  return candidates.find((d) => existsSync(path.join(d, 'USER.md'))) ?? null;
}

/**
 * Creates the wiki's folders and any missing seed file. Idempotent and never overwrites: a file
 * the user (or Dream) already has is left exactly as it is.
 */
export function seedWiki(root: string): string[] {
  ensurePrivateDir(root);
  for (const s of SECTIONS) ensurePrivateDir(path.join(root, s));
  const dir = seedDir();
  const files: Record<string, string> = { ...FALLBACK_SEED };
  if (dir) {
    for (const name of readdirSync(dir)) {
      if (name.endsWith('.md')) files[name] = readFileSync(path.join(dir, name), 'utf8');
    }
  }
  const created: string[] = [];
  for (const [name, content] of Object.entries(files)) {
    const target = path.join(root, name);
    if (existsSync(target)) continue;
    // Write a complete temp file, then hard-link it into place: link() fails if the target
    // appeared meanwhile, so a concurrent first start (or a user's file) is never overwritten.
    const temp = path.join(root, `.${name}.seed-${process.pid}`);
    writeFileAtomicallySync(temp, content);
    try {
      linkSync(temp, target);
      created.push(name);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      rmSync(temp, { force: true });
    }
  }
  return created;
}
