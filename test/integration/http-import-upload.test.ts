import { request } from 'node:http';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/home';
import { runCli } from '../helpers/cli';
import { startServe, type Served } from '../e2e/support';
import { chatgptExport } from '../fixtures/history-exports';

/**
 * The browser's import path: the real `serve` over loopback, the export uploaded to the HTTP
 * door with the token, the import followed through import.status.
 */
const LIMIT = 200_000;
let served: Served;
let home: ReturnType<typeof tempHome>;
let token: string;
const exportBytes = Buffer.from(JSON.stringify(chatgptExport()));
const uploads = () => {
  try {
    return readdirSync(path.join(home.dir, 'tmp'));
  } catch {
    return [];
  }
};

beforeAll(async () => {
  home = tempHome();
  writeFileSync(path.join(home.dir, 'settings.yaml'), `import:\n  maxFileBytes: ${LIMIT}\n`);
  served = await startServe(home.dir);
  token = served.browserUrl.split('#token=')[1]!;
}, 60_000);
afterAll(async () => {
  await served?.stop();
  home?.cleanup();
});

interface Answer {
  status: number;
  body: any;
}

/** A raw request, so Host and the body's pacing are ours to choose. */
function send(
  query: string,
  body: Buffer | Buffer[],
  headers: Record<string, string> = {},
  between?: () => Promise<void>,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${served.url}/api/import/upload${query}`,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/octet-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    void (async () => {
      const parts = Array.isArray(body) ? body : [body];
      for (const [i, part] of parts.entries()) {
        req.write(part);
        if (between && i < parts.length - 1) await between();
      }
      req.end();
    })();
  });
}

async function command(name: string, input: unknown = {}): Promise<any> {
  const r = await fetch(`${served.url}/api/commands/${name}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
  return r.json();
}

async function finished(jobId: string): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const job = (await command('import.status')).jobs.find((j: { id: string }) => j.id === jobId);
    if (job && job.state !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the import did not finish');
}

describe('upload to the HTTP door', () => {
  it('streams the file to a private temp file, imports it in the background and removes the file', async () => {
    const half = Math.floor(exportBytes.length / 2);
    let modeDuringUpload = 0;
    const answer = await send(
      '?projectId=travel&name=' + encodeURIComponent('../My Export/conversations.json'),
      [exportBytes.subarray(0, half), exportBytes.subarray(half)],
      {},
      async () => {
        for (let i = 0; i < 200 && uploads().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
        modeDuringUpload = statSync(path.join(home.dir, 'tmp', uploads()[0]!)).mode & 0o777;
      },
    );
    expect(modeDuringUpload).toBe(0o600);
    expect(statSync(path.join(home.dir, 'tmp')).mode & 0o777).toBe(0o700);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ file: 'conversations.json', state: 'running' });
    const job = await finished(answer.body.id);
    expect(job).toMatchObject({
      state: 'completed',
      phase: 'done',
      bytesRead: exportBytes.length,
      report: { format: 'chatgpt', conversationsCreated: 2, messagesAdded: 10, files: ['conversations.json'] },
    });
    expect(uploads()).toEqual([]);
    // serve extracts over what was imported, in the background.
    for (let i = 0; i < 300 && (await command('import.status')).extraction.pendingSessions > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await command('import.status')).extraction.pendingSessions).toBe(0);
    const sessions = runCli(['sessions', 'list', '--home', home.dir, '--json']).json().sessions;
    expect(sessions.map((s: { projectId: string }) => s.projectId)).toEqual(['travel', 'travel']);
  });

  it('answers 413 for a file over the limit, declared or streamed, and keeps nothing of it', async () => {
    const big = Buffer.alloc(LIMIT + 1, 0x20);
    const declared = await send('', big);
    expect(declared.status).toBe(413);
    expect(declared.body.error).toMatchObject({ code: 'invalid_input', field: 'body' });
    expect(declared.body.error.message).toContain(`import limit of ${LIMIT} bytes`);
    // No Content-Length: refused once the bytes go past the limit.
    const streamed = await send('', [big.subarray(0, LIMIT / 2), big.subarray(LIMIT / 2)], {
      'Transfer-Encoding': 'chunked',
    });
    expect(streamed.status).toBe(413);
    expect(uploads()).toEqual([]);
  });

  it('needs the token, the right Host, octet-stream and valid options', async () => {
    expect((await send('', exportBytes, { Authorization: 'Bearer nope' })).status).toBe(401);
    expect((await send('', exportBytes, { Host: 'evil.example:80' })).status).toBe(403);
    const json = await send('', exportBytes, { 'Content-Type': 'application/json' });
    expect(json).toMatchObject({ status: 400, body: { error: { field: 'content-type' } } });
    const format = await send('?format=csv', exportBytes);
    expect(format).toMatchObject({ status: 400, body: { error: { field: 'format' } } });
    expect(uploads()).toEqual([]);
  });

  it('reports a file that is not an export as a failed job naming the file and the position', async () => {
    const answer = await send('?name=notes.txt', Buffer.from('Dear diary'));
    expect(answer.status).toBe(202);
    const job = await finished(answer.body.id);
    expect(job).toMatchObject({
      state: 'failed',
      error: {
        code: 'invalid_input',
        field: 'from',
        message: expect.stringContaining('notes.txt: byte 0: is not JSON'),
      },
    });
    expect(uploads()).toEqual([]);
  });
});
