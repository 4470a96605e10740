import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempHome } from '../helpers/home';
import { BIN } from '../helpers/cli';
import { connectMcp, errorMeta, errorText, type McpSession } from '../helpers/mcp';
import { contract, isCommandName } from '../../src/shared/contract';
import { AGENT_TOOLS } from '../../src/main/api/mcp';

/** Row counts of every table a tool can write, read straight from the file. */
function snapshot(dbFile: string): Record<string, number> {
  const db = new Database(dbFile, { readonly: true });
  try {
    const out: Record<string, number> = {};
    for (const table of ['sessions', 'session_messages', 'memory_facts', 'memory_fact_evidence']) {
      out[table] = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    }
    out.reinforcementSum = (
      db.prepare('SELECT coalesce(sum(reinforcement), 0) AS n FROM memory_facts').get() as { n: number }
    ).n;
    return out;
  } finally {
    db.close();
  }
}

describe('MCP server over stdio (real SDK client, spawned CLI)', () => {
  const home = tempHome('evoflux-mcp-');
  let mcp: McpSession;
  let alpha: string;
  let beta: string;

  beforeAll(async () => {
    mcp = await connectMcp(home.dir, ['--project', 'alpha', '--project', 'beta', '--workspace', '/srv/alpha']);
    alpha = (await mcp.call('memory_create_session', { projectId: 'alpha', workspace: '/srv/alpha', title: 'Alpha' }))
      .id;
    beta = (await mcp.call('memory_create_session', { projectId: 'beta', title: 'Beta' })).id;
  });
  afterAll(async () => {
    await mcp?.close();
    home.cleanup();
  });

  it("lists the curated tools with the contract's own input schemas", async () => {
    const { tools } = await mcp.client.listTools();
    const names = tools.map((t) => t.name);
    for (const required of ['memory_create_session', 'memory_list_facts', 'memory_forget_fact', 'memory_remember']) {
      expect(names).toContain(required);
    }
    for (const tool of tools) {
      const spec = AGENT_TOOLS.find((t) => t.name === tool.name)!;
      expect(isCommandName(spec.command)).toBe(true);
      const { $schema: _d, ...expected } = z.toJSONSchema(contract[spec.command as keyof typeof contract].input, {
        io: 'input',
        unrepresentable: 'any',
      }) as Record<string, unknown>;
      // Through this door a session is always required where the command can take one.
      const properties = (expected.properties ?? {}) as Record<string, unknown>;
      if ('sessionId' in properties) {
        expect(tool.inputSchema.required).toContain('sessionId');
        expect({ ...tool.inputSchema, required: undefined }).toEqual({ ...expected, required: undefined });
      } else {
        expect(tool.inputSchema).toEqual(expected);
      }
      expect(tool.description).toContain(contract[spec.command as keyof typeof contract].description);
      expect(tool.annotations?.readOnlyHint).toBe(!contract[spec.command as keyof typeof contract].mutates);
    }
    // A tool whose command has not landed is left out rather than offered broken.
    expect(names.every((n) => AGENT_TOOLS.some((t) => t.name === n))).toBe(true);
  });

  it('describes every property of every tool input, nested ones included', async () => {
    const { tools } = await mcp.client.listTools();
    const undescribed: string[] = [];
    const walk = (schema: any, at: string) => {
      for (const [key, property] of Object.entries<any>(schema?.properties ?? {})) {
        if (typeof property.description !== 'string' || property.description.trim() === '') {
          undescribed.push(`${at}.${key}`);
        }
        walk(property, `${at}.${key}`);
        walk(property.items, `${at}.${key}[]`);
      }
    };
    for (const tool of tools) walk(tool.inputSchema, tool.name);
    expect(tools.length).toBeGreaterThan(10);
    expect(undescribed).toEqual([]);
  });

  it('reports the package version as its server version', () => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'evoflux-memory', version: pkg.version });
  });

  it('confines listing and forgetting to the calling session, whatever ids are passed', async () => {
    const mine = await mcp.call('memory_remember', {
      sessionId: alpha,
      text: 'Alpha ships on Fridays',
      kind: 'decision',
      scope: 'project',
    });
    const theirs = await mcp.call('memory_remember', {
      sessionId: beta,
      text: 'Beta roadmap is confidential',
      kind: 'decision',
      scope: 'project',
    });
    const listed = await mcp.call('memory_list_facts', { sessionId: alpha, limit: 200 });
    const ids = listed.facts.map((f: { id: string }) => f.id);
    expect(ids).toContain(mine.fact.id);
    expect(ids).not.toContain(theirs.fact.id);
    expect((await mcp.call('memory_list_facts', { sessionId: alpha, text: 'roadmap' })).facts).toEqual([]);

    const before = snapshot(`${home.dir}/memory.db`);
    const refused = await mcp.raw('memory_forget_fact', { sessionId: alpha, factId: theirs.fact.id });
    expect(refused.isError).toBe(true);
    expect(errorMeta(refused)).toMatchObject({ code: 'not_found', field: 'factId' });
    expect(errorText(refused)).toBe(`not_found: fact not found: ${theirs.fact.id}`);
    expect(snapshot(`${home.dir}/memory.db`)).toEqual(before);
    const still = await mcp.call('memory_list_facts', { sessionId: beta });
    expect(still.facts.map((f: { id: string }) => f.id)).toContain(theirs.fact.id);

    const forgotten = await mcp.call('memory_forget_fact', { sessionId: alpha, factId: mine.fact.id });
    expect(forgotten).toMatchObject({ dryRun: false, fact: { id: mine.fact.id } });
    expect(
      (await mcp.call('memory_list_facts', { sessionId: alpha })).facts.map((f: { id: string }) => f.id),
    ).not.toContain(mine.fact.id);
  });

  it('answers malformed arguments with MCP tool errors naming the field, and changes nothing', async () => {
    await mcp.call('memory_remember', {
      sessionId: alpha,
      text: 'Alpha uses pnpm',
      kind: 'convention',
      scope: 'project',
    });
    const before = snapshot(`${home.dir}/memory.db`);
    const cases: [string, unknown, string][] = [
      ['memory_create_session', { kind: 'weird' }, 'kind'],
      ['memory_create_session', { projectId: 'p', evil: true }, 'evil'],
      ['memory_create_session', { kind: 'team-member' }, 'parentSessionId'],
      ['memory_remember', { sessionId: alpha, text: '   ' }, 'text'],
      ['memory_remember', { sessionId: alpha, text: 42 }, 'text'],
      ['memory_remember', { sessionId: alpha, text: 'x'.repeat(501) }, 'text'],
      ['memory_remember', { sessionId: alpha, text: 'fine', scope: 'galaxy' }, 'scope'],
      ['memory_remember', { sessionId: 'no-such-session', text: 'fine' }, 'sessionId'],
      ['memory_list_facts', { sessionId: alpha, limit: 'ten' }, 'limit'],
      ['memory_list_facts', {}, 'sessionId'],
      ['memory_forget_fact', { sessionId: alpha }, 'factId'],
      ['memory_forget_fact', { sessionId: alpha, factId: ['a'] }, 'factId'],
    ];
    for (const [tool, args, field] of cases) {
      const r = await mcp.raw(tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(errorMeta(r)?.field, `${tool} ${JSON.stringify(args)}`).toBe(field);
      expect(errorText(r)).toMatch(/^(invalid_input|not_found): /);
    }
    // Not even a tool call: the protocol itself refuses it.
    await expect(mcp.raw('memory_forget_fact', 'not an object')).rejects.toBeInstanceOf(McpError);
    await expect(mcp.raw('memory_delete_everything', {})).rejects.toThrow(/unknown tool/);
    expect(snapshot(`${home.dir}/memory.db`)).toEqual(before);
  });

  it('clamps an out-of-range limit to the range and says so, instead of refusing it', async () => {
    for (const [given, used] of [
      [999, 200],
      [-1, 1],
      [0, 1],
    ] as const) {
      const r = await mcp.raw('memory_list_facts', { sessionId: alpha, limit: given });
      expect(r.isError, String(given)).toBeFalsy();
      expect(r._meta?.['evoflux/clamped']).toEqual([{ field: 'limit', given, used }]);
      expect((r.content as { text: string }[]).map((c) => c.text).join('\n')).toContain(
        `limit ${given} is outside the range this tool takes, so ${used} was used`,
      );
    }
    const activity = await mcp.raw('memory_recent_activity', { sessionId: alpha, limit: 10_000 });
    expect(activity._meta?.['evoflux/clamped']).toEqual([{ field: 'limit', given: 10_000, used: 50 }]);
    // In range: nothing to say.
    const plain = await mcp.raw('memory_list_facts', { sessionId: alpha, limit: 5 });
    expect(plain._meta?.['evoflux/clamped']).toBeUndefined();
    expect(plain.content).toHaveLength(1);
  });
});

describe('oversized messages over stdio', () => {
  const home = tempHome('evoflux-mcp-big-');
  afterAll(() => home.cleanup());

  it('answers a 12 MB tool call with an error result and keeps serving', async () => {
    const mcp = await connectMcp(home.dir, ['--project', 'big']);
    try {
      const s = await mcp.call('memory_create_session', { projectId: 'big' });
      const huge = 'x'.repeat(12 * 1024 * 1024);
      const r = await mcp.raw('memory_begin_turn', { sessionId: s.id, userText: huge });
      expect(r.isError).toBe(true);
      expect(errorText(r)).toMatch(
        /^invalid_input: request too large: 12,58\d,\d{3} bytes; this server accepts at most 8,388,608 bytes/,
      );
      expect(errorMeta(r)).toMatchObject({ code: 'invalid_input', field: 'request' });
      // Another request that is not a tool call gets a JSON-RPC error, and the server is still there.
      await expect(
        mcp.client.request(
          { method: 'resources/read', params: { uri: `memory://wiki/${'y'.repeat(9 * 1024 * 1024)}` } },
          ReadResourceResultSchema,
        ),
      ).rejects.toThrow(/request too large/);
      const after = await mcp.call('memory_begin_turn', { sessionId: s.id, userText: 'Still here after that?' });
      expect(after.userMessage.content).toBe('Still here after that?');
      expect(mcp.stderr()).not.toMatch(/ReadBuffer exceeded/);
    } finally {
      await mcp.close();
    }
  });
});

describe('mcp command process', () => {
  it('shuts down cleanly on SIGTERM, keeping what it wrote', async () => {
    const home = tempHome('evoflux-mcp-term-');
    try {
      const mcp = await connectMcp(home.dir, ['--project', 'term']);
      const s = await mcp.call('memory_create_session', {});
      await mcp.call('memory_remember', { sessionId: s.id, text: 'Written before the signal', scope: 'project' });
      // The SDK keeps the child private; its exit status is what tells a clean shutdown from a kill.
      const child = (mcp.client.transport as unknown as { _process: import('node:child_process').ChildProcess })
        ._process;
      const exited = new Promise<[number | null, string | null]>((resolve) =>
        child.once('exit', (code, signal) => resolve([code, signal])),
      );
      child.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
      expect(mcp.stderr()).not.toMatch(/error/i);
      expect(snapshot(`${home.dir}/memory.db`).memory_facts).toBe(1);
      await mcp.close();
    } finally {
      home.cleanup();
    }
  });

  it('writes nothing but JSON-RPC on stdout, logs on stderr, and exits 0 when stdin closes', async () => {
    const home = tempHome('evoflux-mcp-raw-');
    try {
      const child = spawn(process.execPath, [BIN, 'mcp', '--home', home.dir], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n');
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'memory_list_facts', arguments: { limit: 3 } },
      });
      send({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'memory_create_session', arguments: { title: 'raw' } },
      });
      // Wait for all four answers, then hang up the way an MCP client does.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answers; stderr: ${stderr}`)), 30_000);
        child.stdout.on('data', () => {
          if (stdout.split('\n').filter(Boolean).length < 4) return;
          clearTimeout(timer);
          resolve();
        });
      });
      child.stdin.end();
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
      const lines = stdout.split('\n').filter(Boolean);
      const messages = lines.map((l) => JSON.parse(l));
      expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
      expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3, 4]);
      expect(messages.find((m) => m.id === 1).result.serverInfo.name).toBe('evoflux-memory');
      expect(messages.find((m) => m.id === 3).result.isError).toBe(true);
      expect(messages.find((m) => m.id === 4).result.structuredContent.title).toBe('raw');
      expect(stderr).toContain('evoflux-memory mcp: serving');
    } finally {
      home.cleanup();
    }
  });
});
