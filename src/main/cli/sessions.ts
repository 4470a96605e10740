import { wikiLines } from './forget-text';
import { call, flag, fmtTime, int, requireStr, str, table, textArg, type CliCommand } from './framework';
import type { SessionRecord } from '../../shared/schemas';

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

export const sessionCli: CliCommand[] = [
  {
    path: ['sessions', 'add'],
    summary: 'create a session',
    usage:
      '[--kind top-level|team-member|side-chat] [--parent ID] [--project ID] [--workspace PATH] [--folder ID] [--title T] [--agent NAME] [--id ID]',
    options: {
      kind: { type: 'string' },
      parent: { type: 'string' },
      project: { type: 'string' },
      workspace: { type: 'string' },
      folder: { type: 'string' },
      title: { type: 'string' },
      agent: { type: 'string' },
      id: { type: 'string' },
    },
    run: async (ctx, v) => {
      const s = await call(ctx, 'sessions.create', {
        id: str(v, 'id'),
        kind: str(v, 'kind'),
        parentSessionId: str(v, 'parent'),
        projectId: str(v, 'project'),
        workspace: str(v, 'workspace'),
        folderId: str(v, 'folder'),
        title: str(v, 'title'),
        agentName: str(v, 'agent'),
      });
      return { data: s, text: describeSession(s) };
    },
  },
  {
    path: ['sessions', 'list'],
    summary: 'list sessions, newest first',
    usage: '[--kind K] [--project ID] [--workspace PATH] [--folder ID] [--limit N] [--cursor C]',
    options: {
      kind: { type: 'string' },
      project: { type: 'string' },
      workspace: { type: 'string' },
      folder: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
    },
    run: async (ctx, v) => {
      const page = await call(ctx, 'sessions.list', {
        kind: str(v, 'kind'),
        projectId: str(v, 'project'),
        workspace: str(v, 'workspace'),
        folderId: str(v, 'folder'),
        limit: int(v, 'limit'),
        cursor: str(v, 'cursor'),
      });
      const rows = page.sessions.map((s) => [s.id, s.kind, String(s.messageCount), s.projectId ?? '-', s.title ?? '']);
      const text = page.sessions.length
        ? table([['ID', 'KIND', 'MSGS', 'PROJECT', 'TITLE'], ...rows]) +
          (page.nextCursor ? `\n(more: --cursor ${page.nextCursor})` : '')
        : 'no sessions';
      return { data: page, text };
    },
  },
  {
    path: ['sessions', 'show'],
    summary: 'show one session with its transcript',
    usage: '--session ID [--hidden]',
    options: { session: { type: 'string' }, hidden: { type: 'boolean' } },
    run: async (ctx, v) => {
      const sessionId = requireStr(v, 'session', 'sessionId');
      const session = await call(ctx, 'sessions.get', { sessionId });
      const { messages } = await call(ctx, 'messages.list', {
        sessionId,
        includeHidden: flag(v, 'hidden'),
        limit: 1000,
      });
      const lines = messages.map((m) => {
        const tags = [
          m.hidden && 'hidden',
          m.sideChatContext && 'side-chat-context',
          m.toolCallRound && 'tool-round',
          m.isSummary && 'summary',
          m.compacted && 'compacted',
        ].filter(Boolean);
        return `#${m.seq} ${m.role}${tags.length ? ` [${tags.join(', ')}]` : ''}: ${m.content}`;
      });
      const text = [
        describeSession(session),
        `  messages:  ${session.messageCount}   facts with evidence: ${session.factCount}`,
        ...session.children.map((c) => `  child:     ${c.id} (${c.kind})`),
        '',
        ...lines,
      ].join('\n');
      return { data: { ...session, messages }, text };
    },
  },
  {
    path: ['sessions', 'delete'],
    summary: 'forget a session: its evidence, then facts no other session supports',
    usage: '--session ID [--dry-run]',
    options: { session: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    run: async (ctx, v) => {
      const r = await call(ctx, 'sessions.delete', {
        sessionId: requireStr(v, 'session', 'sessionId'),
        dryRun: flag(v, 'dry-run'),
      });
      const verb = r.dryRun ? 'would delete' : 'deleted';
      const keep = r.dryRun ? 'would keep' : 'kept';
      const text = [
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
      return { data: r, text };
    },
  },
  {
    path: ['messages', 'add'],
    summary: 'append a message to a session',
    usage:
      '--session ID --role user|assistant|tool|system [--hidden] [--side-chat-context] [--tool-round] [--system-generated] TEXT',
    options: {
      session: { type: 'string' },
      role: { type: 'string' },
      hidden: { type: 'boolean' },
      'side-chat-context': { type: 'boolean' },
      'tool-round': { type: 'boolean' },
      'system-generated': { type: 'boolean' },
    },
    run: async (ctx, v, positionals) => {
      const m = await call(ctx, 'messages.add', {
        sessionId: requireStr(v, 'session', 'sessionId'),
        role: requireStr(v, 'role'),
        content: flag(v, 'tool-round') ? positionals.join(' ') : textArg(positionals, 'content'),
        hidden: flag(v, 'hidden'),
        sideChatContext: flag(v, 'side-chat-context'),
        toolCallRound: flag(v, 'tool-round'),
        systemGenerated: flag(v, 'system-generated'),
      });
      return { data: m, text: `${m.id}  #${m.seq} ${m.role}` };
    },
  },
];
