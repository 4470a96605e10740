import { version } from '../../package.json';

/** The package version, compiled in (doctor, the MCP server's name and version). */
export const APP_VERSION: string = version;
