import type { CliViews } from './framework';
import type { OutputOf } from '../../shared/contract';
import type { wikiCommands } from '../../shared/commands/wiki';

export function lintText(r: OutputOf<(typeof wikiCommands)['wiki.lint']>): string {
  if (r.issues === 0) return 'wiki is healthy: 0 issues (LINT.md written)';
  return [
    `${r.issues} issue(s) (LINT.md written):`,
    ...r.findings.map((f) => `  ${f.category.padEnd(20)} ${f.path}: ${f.message}`),
  ].join('\n');
}

export const wikiViews: CliViews = {
  'wiki.tree': {
    text: (tree) =>
      Object.entries(tree)
        .map(([section, entries]) =>
          [
            `${section} (${entries.length})`,
            ...entries.map((e) => `  ${e.path}${e.description ? `  — ${e.description}` : ''}`),
          ].join('\n'),
        )
        .join('\n'),
  },
  'wiki.read': { text: (page) => page.content.replace(/\n$/, '') },
  'wiki.write': { text: (r) => `${r.created ? 'created' : 'replaced'} ${r.path}` },
  'wiki.delete': { text: (r) => `deleted ${r.path}` },
  'wiki.notes.append': { text: (r) => `appended to ${r.path}` },
  'wiki.lint': { text: lintText },
  'wiki.export': { text: (r) => `${r.facts} fact(s) in ${r.pages.length} page(s) written to ${r.dir}` },
};
