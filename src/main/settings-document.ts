import { readFileSync } from 'node:fs';
import type { Document, YAMLMap } from 'yaml';
import { yaml } from './lazy-deps';
import { CommandError } from '../shared/errors';

/**
 * settings.yaml as a YAML document to edit in place, so a save keeps the file's comments and every
 * other key; a conflict when it cannot be edited safely (unparseable, or not a mapping). Every
 * writer of settings.yaml (the settings screen, `dream config`) opens it here.
 */
export function openSettingsDocument(file: string): Document {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const { isMap, isScalar, parseDocument } = yaml();
  const doc: Document = parseDocument(text);
  if (doc.errors.length) {
    throw new CommandError(
      'conflict',
      `settings.yaml cannot be parsed, so it was not changed: ${doc.errors[0]!.message}`,
      'settings.yaml',
    );
  }
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    // An empty or comments-only file: a mapping takes the place of the empty value, and the
    // comments attached to it move over, so none is lost.
    const empty = doc.contents;
    const map = doc.createNode({}) as YAMLMap;
    map.commentBefore = empty?.commentBefore;
    map.comment = empty?.comment;
    doc.contents = map as Document['contents'];
  } else if (!isMap(doc.contents)) {
    throw new CommandError('conflict', 'settings.yaml is not a mapping, so it was not changed', 'settings.yaml');
  }
  return doc;
}
