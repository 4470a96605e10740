import { describe, expect, it } from 'vitest';
import { isInsideFolder, withinContext, AGENT_COMMANDS } from '../../src/main/commands/principal';
import { AGENT_TOOLS } from '../../src/main/api/mcp';

const ctx = { projects: ['alpha'], workspaces: ['/src/alpha'], folders: ['docs'] };
const s = (projectId: string | null, workspace: string | null, folderId: string | null) => ({
  projectId,
  workspace,
  folderId,
});

describe('what a declared context contains', () => {
  it('needs at least one of project, workspace and folder, and every one the session has declared', () => {
    expect(withinContext(s(null, null, null), ctx)).toBe(false);
    expect(withinContext(s('alpha', null, null), ctx)).toBe(true);
    expect(withinContext(s('alpha', '/src/alpha/web', 'docs'), ctx)).toBe(true);
    // An undeclared workspace or folder would show the agent that workspace's or folder's memory.
    expect(withinContext(s('alpha', '/src/bravo', null), ctx)).toBe(false);
    expect(withinContext(s('alpha', null, 'secrets'), ctx)).toBe(false);
    expect(withinContext(s('bravo', '/src/alpha', null), ctx)).toBe(false);
    expect(withinContext(s('alpha', null, null), { projects: [], workspaces: [], folders: [] })).toBe(false);
  });

  it('takes a workspace at or below a declared folder, never a sibling with the same prefix', () => {
    expect(isInsideFolder('/src/alpha', '/src/alpha')).toBe(true);
    expect(isInsideFolder('/src/alpha/web/app', '/src/alpha')).toBe(true);
    expect(isInsideFolder('/src/alphabet', '/src/alpha')).toBe(false);
    expect(isInsideFolder('/src', '/src/alpha')).toBe(false);
  });

  it('opens to agents exactly the commands the MCP tools use', () => {
    expect([...new Set(AGENT_TOOLS.map((t) => t.command))].sort()).toEqual([...AGENT_COMMANDS].sort());
  });
});
