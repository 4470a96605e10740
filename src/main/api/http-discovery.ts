import { readFileSync, rmSync } from 'node:fs';
import { replacePrivateFileSync } from '../private-fs';
import { API_V1, MCP_PATH } from './http-paths';

/**
 * `<home>/http-server.json`: where the HTTP door of a running `serve` or desktop app listens, so
 * an MCP client's configuration (or a script) can find the port without guessing. The token is
 * never in it; it stays in `<home>/http-token`. The file is removed when that process stops.
 */
export interface HttpServerInfo {
  url: string;
  mcpUrl: string;
  apiUrl: string;
  openapiUrl: string;
  port: number;
  pid: number;
  /** Which program listens: `serve` or `desktop`. */
  by: string;
  startedAt: string;
  tokenFile: string;
}

export function httpServerInfo(url: string, port: number, by: string, tokenFile: string): HttpServerInfo {
  return {
    url,
    mcpUrl: `${url}${MCP_PATH}`,
    apiUrl: `${url}${API_V1}`,
    openapiUrl: `${url}${API_V1}/openapi.json`,
    port,
    pid: process.pid,
    by,
    startedAt: new Date().toISOString(),
    tokenFile,
  };
}

export function writeHttpServerInfo(file: string, info: HttpServerInfo): void {
  replacePrivateFileSync(file, JSON.stringify(info, null, 2) + '\n');
}

export function readHttpServerInfo(file: string): HttpServerInfo | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as HttpServerInfo;
  } catch {
    return null;
  }
}

/** Removes the file if it still describes this process (another door may have started since). */
export function removeHttpServerInfo(file: string): void {
  if (readHttpServerInfo(file)?.pid === process.pid) rmSync(file, { force: true });
}
