import type { ForgetWikiReport } from '../../shared/schemas';

/** The wiki part of a forget's answer, as the CLI prints it. */
export function wikiLines(w: ForgetWikiReport, dryRun: boolean): string[] {
  const lines: string[] = [];
  if (w.pages.length) {
    lines.push(
      `${dryRun ? 'wiki pages that would change' : w.pending ? 'wiki pages queued to change' : 'wiki pages changed'}:`,
    );
    lines.push(...w.pages.map((p) => `  - ${p.change} ${p.path}`));
  }
  if (w.mentions.length) {
    lines.push(
      `${dryRun ? 'mentions that would remain' : 'mentions that remain'} (text a person wrote; edit it yourself):`,
    );
    lines.push(...w.mentions.map((m) => `  - ${m.path}:${m.line}  ${m.text}`));
  }
  return lines;
}
