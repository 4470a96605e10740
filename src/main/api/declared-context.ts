import { normalizeWorkspacePath } from '../memory/workspace-path';
import type { AgentContext } from '../commands/principal';
import { id } from '../../shared/schemas';
import { invalid } from '../../shared/errors';

// Kept apart from mcp-context.ts: the CLI parses `mcp` flags on every start, and must not load
// the MCP SDK to do it.

const list = (raw: unknown): string[] => (Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? [raw] : []);

/**
 * A context declared as lists of projects, workspaces and folders: the `mcp` launch flags, or
 * the query parameters of an `/mcp` URL. `label` names a field as the person typed it
 * (`--project`, `project`), so a refusal points at the right place.
 */
export function declaredContext(
  values: { project?: unknown; workspace?: unknown; folder?: unknown },
  label: (name: 'project' | 'workspace' | 'folder') => string,
): AgentContext {
  const unique = (xs: string[]) => [...new Set(xs)];
  const checkedId = (value: string, name: 'project' | 'folder') => {
    const parsed = id.safeParse(value);
    if (!parsed.success) throw invalid(name, `${label(name)}: ${parsed.error.issues[0]?.message ?? 'is not an id'}`);
    return parsed.data;
  };
  const workspace = (value: string) => {
    try {
      return normalizeWorkspacePath(value);
    } catch (e) {
      throw invalid('workspace', `${label('workspace')}: ${(e as Error).message.replace(/^workspace: /, '')}`);
    }
  };
  return {
    projects: unique(list(values.project).map((p) => checkedId(p, 'project'))),
    workspaces: unique(list(values.workspace).map(workspace)),
    folders: unique(list(values.folder).map((f) => checkedId(f, 'folder'))),
  };
}
