import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/home';

const COMPANION = path.resolve(__dirname, '../../examples/companion/index.ts');

interface ChatRequest {
  authorization?: string;
  model: string;
  messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] }[];
  tools?: {
    type: string;
    function: { name: string; parameters: { properties?: Record<string, unknown>; required?: string[] } };
  }[];
}

/** A scripted OpenAI-compatible endpoint on loopback: replies in order, records every request. */
function fakeModel(replies: unknown[]): Promise<{ server: Server; url: string; requests: ChatRequest[] }> {
  const requests: ChatRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      requests.push({ ...JSON.parse(body), authorization: req.headers.authorization });
      const message = replies[requests.length - 1] ?? { role: 'assistant', content: 'out of script' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `c${requests.length}`,
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: 'stop' }],
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests }),
    ),
  );
}

const toolCall = (id: string, name: string, args: unknown) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});

describe('example companion (examples/companion) against an OpenAI-compatible endpoint', () => {
  const home = tempHome('evoflux-companion-');
  let model: Awaited<ReturnType<typeof fakeModel>>;
  let run: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    model = await fakeModel([
      toolCall('call-1', 'memory_remember', {
        text: 'Atlas billing uses PostgreSQL as its database.',
        kind: 'decision',
        scope: 'project',
      }),
      { role: 'assistant', content: 'Remembered that.' },
      toolCall('call-2', 'memory_search', { query: 'Atlas billing database' }),
      { role: 'assistant', content: 'Atlas billing uses PostgreSQL.' },
    ]);
    run = await new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        ['--require', 'tsx/cjs', COMPANION, '--home', home.dir, '--project', 'atlas', '--workspace', home.dir],
        {
          env: {
            ...process.env,
            OPENAI_BASE_URL: model.url,
            OPENAI_MODEL: 'scripted',
            OPENAI_API_KEY: 'test-key',
            EVOFLUX_HOME: '',
          },
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
      child.stdin.write('Please keep in mind how Atlas billing stores its data.\n');
      child.stdin.end('Which database does Atlas billing use?\n');
    });
  }, 90_000);
  afterAll(async () => {
    await new Promise((r) => model?.server.close(r));
    home.cleanup();
  });

  it("runs two turns, printing the model's answers, and exits cleanly", () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('assistant> Remembered that.');
    expect(run.stdout).toContain('assistant> Atlas billing uses PostgreSQL.');
    expect(model.requests).toHaveLength(4);
    expect(model.requests[0]!.model).toBe('scripted');
    expect(model.requests.every((r) => r.authorization === 'Bearer test-key')).toBe(true);
  });

  it('offers the model memory tools without the session id, and fills it in itself', () => {
    const tools = model.requests[0]!.tools!.map((t) => t.function.name).sort();
    expect(tools).toEqual(['memory_forget_fact', 'memory_list_facts', 'memory_remember', 'memory_search']);
    for (const t of model.requests[0]!.tools!) {
      expect(t.function.parameters.properties ?? {}).not.toHaveProperty('sessionId');
      expect(t.function.parameters.required ?? []).not.toContain('sessionId');
    }
    const remembered = model.requests[1]!.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call-1');
    expect(remembered?.content).toContain('"created":true');
    const searched = model.requests[3]!.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call-2');
    expect(searched?.content).toMatch(/^Memory search results/);
    expect(searched?.content).toContain('PostgreSQL');
  });

  it('gives the model the recalled fact of the first turn as untrusted data in the second', () => {
    const second = model.requests[2]!.messages;
    expect(second[0]!.role).toBe('system');
    const recallRow = second.find((m) => m.role === 'user' && m.content?.includes('<memory_data>'));
    expect(recallRow?.content).toContain('Atlas billing uses PostgreSQL as its database.');
    expect(recallRow?.content).toContain('untrusted');
    // The earlier turn is in the window; the new request is there once.
    expect(second.filter((m) => m.content === 'Which database does Atlas billing use?')).toHaveLength(1);
    expect(second.some((m) => m.role === 'assistant' && m.content === 'Remembered that.')).toBe(true);
  });

  it('persisted both turns, tool rounds as tool rounds, so only final answers count as responses', () => {
    const db = new Database(path.join(home.dir, 'memory.db'), { readonly: true });
    try {
      const rows = db
        .prepare(
          'SELECT role, content, tool_call_round AS toolRound, hidden FROM session_messages ORDER BY created_at, seq',
        )
        .all() as { role: string; content: string; toolRound: number; hidden: number }[];
      const visible = rows.filter((r) => !r.hidden);
      expect(visible.map((r) => `${r.role}${r.toolRound ? '(tool call)' : ''}`)).toEqual([
        'user',
        'assistant(tool call)',
        'tool',
        'assistant',
        'user',
        'assistant(tool call)',
        'tool',
        'assistant',
      ]);
      expect(visible[1]!.content).toContain('memory_remember(');
      const session = db.prepare('SELECT project_id AS projectId, agent_name AS agentName FROM sessions').get() as {
        projectId: string;
        agentName: string;
      };
      expect(session).toEqual({ projectId: 'atlas', agentName: 'example-companion' });
    } finally {
      db.close();
    }
  });
});
