import path from 'node:path';
import { DEFAULT_LOCOMO_FILE } from './dataset';

/**
 * `--data FILE` or `--data=FILE`, else the shared dev file. A relative FILE is read from where the
 * command was typed: npm runs scripts from the package folder but keeps that place in INIT_CWD.
 */
export function dataFile(args: readonly string[]): string {
  const i = args.findIndex((a) => a === '--data' || a.startsWith('--data='));
  if (i < 0) return DEFAULT_LOCOMO_FILE;
  const value = args[i]!.includes('=') ? args[i]!.slice('--data='.length) : args[i + 1];
  if (!value) throw new Error('--data needs a file');
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), value);
}
