/**
 * The HTTP door's paths. The JSON API is versioned in its path (`/api/v1/…`); the same routes
 * without `/v1` are kept as aliases of version 1, so the window and existing scripts keep working.
 * A future version 2 would get its own prefix and leave these as they are.
 */
export const API_VERSION = '1';
export const API_V1 = '/api/v1';
export const MCP_PATH = '/mcp';
export const OPENAPI_PATH = '/api/openapi.json';

/** `/api/v1/commands/x` → `/api/commands/x`; other paths are returned as they are. */
export function unversioned(pathname: string): string {
  return pathname.startsWith(`${API_V1}/`) ? `/api/${pathname.slice(API_V1.length + 1)}` : pathname;
}
