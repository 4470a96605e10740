import { readFileSync } from 'node:fs';
import { call, flag, requireStr, str, textArg, type CliCommand } from './framework';
import type { OutputOf } from '../../shared/contract';
import type { wikiCommands } from '../../shared/commands/wiki';

export function lintText(r: OutputOf<(typeof wikiCommands)['wiki.lint']>): string {
  if (r.issues === 0) return 'wiki is healthy: 0 issues (LINT.md written)';
  return [
    `${r.issues} issue(s) (LINT.md written):`,
    ...r.findings.map((f) => `  ${f.category.padEnd(20)} ${f.path}: ${f.message}`),
  ].join('\n');
}

export const wikiCli: CliCommand[] = [
  {
    path: ['wiki', 'tree'],
    summary: "list the wiki by section with each page's description",
    usage: '[--unprocessed]   (only notes Dream has not consumed yet)',
    options: { unprocessed: { type: 'boolean' } },
    run: async (ctx, v) => {
      const tree = await call(ctx, 'wiki.tree', { unprocessedOnly: flag(v, 'unprocessed') });
      const text = Object.entries(tree)
        .map(([section, entries]) =>
          [
            `${section} (${entries.length})`,
            ...entries.map((e) => `  ${e.path}${e.description ? `  — ${e.description}` : ''}`),
          ].join('\n'),
        )
        .join('\n');
      return { data: tree, text };
    },
  },
  {
    path: ['wiki', 'read'],
    summary: 'print one wiki page',
    usage: '--path topics/NAME.md',
    options: { path: { type: 'string' } },
    run: async (ctx, v) => {
      const page = await call(ctx, 'wiki.read', { path: requireStr(v, 'path') });
      return { data: page, text: page.content.replace(/\n$/, '') };
    },
  },
  {
    path: ['wiki', 'write'],
    summary: 'create or replace a wiki page from a file (not notes/ or LOG.md)',
    usage: '--path topics/NAME.md --file FILE',
    options: { path: { type: 'string' }, file: { type: 'string' } },
    run: async (ctx, v) => {
      const content = readFileSync(requireStr(v, 'file', 'content'), 'utf8');
      const r = await call(ctx, 'wiki.write', { path: requireStr(v, 'path'), content });
      return { data: r, text: `${r.created ? 'created' : 'replaced'} ${r.path}` };
    },
  },
  {
    path: ['wiki', 'delete'],
    summary: 'delete a wiki page (USER.md, INDEX.md, LOG.md are protected)',
    usage: '--path topics/NAME.md',
    options: { path: { type: 'string' } },
    run: async (ctx, v) => {
      const r = await call(ctx, 'wiki.delete', { path: requireStr(v, 'path') });
      return { data: r, text: `deleted ${r.path}` };
    },
  },
  {
    path: ['wiki', 'note'],
    summary: "append an entry to today's daily note (Dream input)",
    usage: 'TEXT',
    run: async (ctx, _v, positionals) => {
      const r = await call(ctx, 'wiki.notes.append', { content: textArg(positionals, 'content') });
      return { data: r, text: `appended to ${r.path}` };
    },
  },
  {
    path: ['wiki', 'lint'],
    summary: 'check the wiki and write LINT.md',
    usage: '',
    run: async (ctx) => {
      const r = await call(ctx, 'wiki.lint', {});
      return { data: r, text: lintText(r) };
    },
  },
  {
    path: ['wiki', 'export'],
    summary: 'write every fact, by scope, as Markdown pages',
    usage: '[--dir DIR]   (default <home>/wiki-export)',
    options: { dir: { type: 'string' } },
    run: async (ctx, v) => {
      const r = await call(ctx, 'wiki.export', { dir: str(v, 'dir') });
      return { data: r, text: `${r.facts} fact(s) in ${r.pages.length} page(s) written to ${r.dir}` };
    },
  },
];
