import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeWorkspacePath } from '../../src/main/memory/workspace-path';

describe('normalizeWorkspacePath', () => {
  it('gives the same key for the same folder however it is written', () => {
    const a = normalizeWorkspacePath('/srv/app/../app/src/');
    expect(a).toBe('/srv/app/src');
    expect(normalizeWorkspacePath('/srv//app/./src')).toBe(a);
  });

  it('expands ~ and resolves symlinks where the path exists', () => {
    expect(normalizeWorkspacePath('~/proj/x')).toBe(path.join(os.homedir(), 'proj/x'));
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ws-'));
    try {
      mkdirSync(path.join(dir, 'real'));
      symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
      const real = normalizeWorkspacePath(path.join(dir, 'real', 'missing-child'));
      expect(normalizeWorkspacePath(path.join(dir, 'link', 'missing-child'))).toBe(real);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps case on Linux and folds it on Windows and macOS', () => {
    expect(normalizeWorkspacePath('/Srv/App', { platform: 'linux', home: '/home/u' })).toBe('/Srv/App');
    expect(normalizeWorkspacePath('C:\\Users\\Me\\Proj\\', { platform: 'win32', home: 'C:\\Users\\Me' })).toBe(
      'c:\\users\\me\\proj',
    );
    expect(normalizeWorkspacePath('/Users/Me/Proj/', { platform: 'darwin', home: '/Users/Me' })).toBe('/users/me/proj');
    expect(normalizeWorkspacePath('/', { platform: 'linux', home: '/h' })).toBe('/');
  });

  it('rejects relative, empty and NUL paths with a clear error', () => {
    expect(() => normalizeWorkspacePath('proj/x')).toThrow(/workspace: must be an absolute path/);
    expect(() => normalizeWorkspacePath('  ')).toThrow(/workspace: must be a non-empty path/);
    expect(() => normalizeWorkspacePath('/a\0b')).toThrow(/NUL/);
  });
});
