import { wikiLines } from './forget-text';
import { dispatch } from '../commands/dispatch';
import { OWNER } from '../commands/principal';
import { fmtTime, table, type CliViews, type DoorCommand } from './framework';
import type { Contract, OutputOf } from '../../shared/contract';
import type { MessageRecord, SessionRecord } from '../../shared/schemas';

const describeSession = (s: SessionRecord) =>
  [
    `${s.id}  ${s.kind}${s.title ? `  "${s.title}"` : ''}`,
    s.parentSessionId ? `  parent:    ${s.parentSessionId}` : '',
    s.projectId ? `  project:   ${s.projectId}` : '',
    s.workspace ? `  workspace: ${s.workspace}` : '',
    s.folderId ? `  folder:    ${s.folderId}` : '',
    `  created:   ${fmtTime(s.createdAt)}`,
  ]
    .filter(Boolean)
    .join('\n');

const describeWithCounts = (s: OutputOf<Contract['sessions.get']>) =>
  [
    describeSession(s),
    `  messages:  ${s.messageCount}   facts with evidence: ${s.factCount}`,
    s.importedFrom
      ? `  imported:  ${s.importedFrom.source} conversation ${s.importedFrom.conversationId}, ${fmtTime(s.importedFrom.importedAt)}`
      : '',
    ...s.children.map((c) => `  child:     ${c.id} (${c.kind})`),
  ]
    .filter(Boolean)
    .join('\n');

const transcriptLine = (m: MessageRecord) => {
  const tags = [
    m.hidden && 'hidden',
    m.sideChatContext && 'side-chat-context',
    m.toolCallRound && 'tool-round',
    m.isSummary && 'summary',
    m.compacted && 'compacted',
  ].filter(Boolean);
  return `#${m.seq} ${m.role}${tags.length ? ` [${tags.join(', ')}]` : ''}: ${m.content}`;
};

function forgetReport(r: OutputOf<Contract['sessions.delete']>): string {
  const verb = r.dryRun ? 'would delete' : 'deleted';
  const keep = r.dryRun ? 'would keep' : 'kept';
  return [
    `${r.dryRun ? 'Dry run: ' : ''}${r.sessionIds.length} session(s), ${r.messagesRemoved} message(s), ${r.evidenceRemoved} evidence row(s)`,
    `${verb} ${r.deleted.length} fact(s) no other session supports:`,
    ...r.deleted.map((f) => `  - [${f.scope}] ${f.text}  (${f.id})`),
    `${keep} ${r.kept.length} fact(s) other sessions still support:`,
    ...r.kept.map(
      (f) =>
        `  - [${f.scope}] ${f.text}  (${f.id}; supported by ${f.supportedBy.join(', ')}${f.handedToLead ? ' (handed to the lead)' : ''}; reinforcement ${f.reinforcementAfter})`,
    ),
    ...wikiLines(r.wiki, r.dryRun),
  ].join('\n');
}

export const sessionViews: CliViews = {
  'sessions.create': { text: describeSession },
  'sessions.list': {
    text: (page) => {
      const rows = page.sessions.map((s) => [s.id, s.kind, String(s.messageCount), s.projectId ?? '-', s.title ?? '']);
      return page.sessions.length
        ? table([['ID', 'KIND', 'MSGS', 'PROJECT', 'TITLE'], ...rows]) +
            (page.nextCursor ? `\n(more: --cursor ${page.nextCursor})` : '')
        : 'no sessions';
    },
  },
  'sessions.get': { text: describeWithCounts },
  'sessions.delete': { text: forgetReport },
  'messages.add': { text: (m) => `${m.id}  #${m.seq} ${m.role}` },
  'messages.list': {
    text: (r) =>
      [
        ...r.messages.map(transcriptLine),
        ...(r.nextAfterSeq !== null ? [`(more: --after-seq ${r.nextAfterSeq})`] : []),
      ].join('\n') || 'no messages',
  },
};

/** `sessions show`: one session with its transcript (sessions.get and messages.list together). */
export const sessionsShow: DoorCommand = {
  path: ['sessions', 'show'],
  summary: 'One session with its counts, children and transcript (sessions get + messages list).',
  fields: [
    { command: 'sessions.get', field: 'sessionId' },
    { command: 'messages.list', field: 'includeHidden' },
  ],
  run: async (ctx, input) => {
    const session = await dispatch(ctx.engine(), 'sessions.get', { sessionId: input.sessionId }, OWNER);
    const { messages } = await dispatch(
      ctx.engine(),
      'messages.list',
      {
        sessionId: session.id,
        includeHidden: input.includeHidden,
        limit: 1000,
      },
      OWNER,
    );
    const text = [describeWithCounts(session), '', ...messages.map(transcriptLine)].join('\n');
    return { data: { ...session, messages }, text };
  },
};
