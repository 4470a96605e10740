import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLog, logLevelFrom, processKind, rotateLogFile, setProcessKind } from '../../src/main/log';
import { testResources } from '../helpers/home';

const res = testResources();
afterEach(async () => {
  vi.restoreAllMocks();
  await res.release();
});

describe('the engine log', () => {
  it('writes nothing (and loads nothing) until there is a line; then a private file with level, kind and pid', () => {
    const file = path.join(res.home(), 'evoflux.log');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, 'write');
    const log = createLog({ file, level: 'info' });
    expect(existsSync(file)).toBe(false);
    const kind = processKind();
    setProcessKind('mcp');
    try {
      log.debug('not at info level');
      log.info('opened');
      log.warn('settings: a problem');
      log.error('boom', new Error('the cause'));
    } finally {
      setProcessKind(kind);
    }
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z INFO  mcp\\[${process.pid}\\] opened$`));
    expect(lines[1]).toContain(`WARN  mcp[${process.pid}] settings: a problem`);
    expect(lines.slice(2).join('\n')).toContain('Error: the cause');
    expect(lines.join('\n')).not.toContain('not at info level');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Warnings and errors are mirrored on stderr; nothing ever goes to stdout (the MCP protocol's).
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(
      /evoflux warn: settings: a problem[\s\S]*evoflux error: boom/,
    );
    expect(stdout).not.toHaveBeenCalled();
  });

  it('rotates by size, keeping a bounded number of files', () => {
    const dir = res.home();
    const file = path.join(dir, 'evoflux.log');
    const log = createLog({ file, maxBytes: 64 * 1024, keep: 2, stderrLevel: 'off' });
    const line = 'x'.repeat(1000);
    for (let i = 0; i < 300; i++) log.info(`${i} ${line}`);
    expect(readdirSync(dir).sort()).toEqual(['evoflux.1.log', 'evoflux.2.log', 'evoflux.log']);
    for (const f of readdirSync(dir)) {
      expect(statSync(path.join(dir, f)).size).toBeLessThanOrEqual(64 * 1024 + 1100);
      expect(statSync(path.join(dir, f)).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(file, 'utf8')).toContain(' 299 x');
    // A file another process already rotated is left alone.
    rotateLogFile(file, 2, 10 * 1024 * 1024);
    expect(readdirSync(dir)).toHaveLength(3);
  });

  it('EVOFLUX_LOG_LEVEL overrides the configured level when it names one', () => {
    expect(logLevelFrom({ EVOFLUX_LOG_LEVEL: 'DEBUG' }, 'info')).toBe('debug');
    expect(logLevelFrom({ EVOFLUX_LOG_LEVEL: 'loud' }, 'warn')).toBe('warn');
    expect(logLevelFrom({}, 'error')).toBe('error');
  });
});
