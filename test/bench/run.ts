/**
 * `npm run bench`: runs every test/bench/*.bench.ts in its own process, one after another (two
 * cores: parallel benchmarks would measure each other), and prints their figures. Pass names
 * to run a subset: `npm run bench -- store recall`. Flags (`--data FILE`, `--name=value`) are
 * passed through to every bench that runs: `npm run bench -- locomo --data ../my-locomo.json`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Splits the arguments into bench names and flags (a flag's value is the word after it). */
export function splitArguments(args: readonly string[]): { names: string[]; flags: string[] } {
  const names: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      names.push(arg);
      continue;
    }
    flags.push(arg);
    const value = args[i + 1];
    if (!arg.includes('=') && value !== undefined && !value.startsWith('--')) {
      flags.push(value);
      i++;
    }
  }
  return { names, flags };
}

function main(): void {
  const dir = __dirname;
  const { names, flags } = splitArguments(process.argv.slice(2));
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => names.length === 0 || names.some((w) => f.includes(w)))
    .sort();

  let failed = 0;
  for (const file of files) {
    console.log(`\n=== ${file}`);
    const r = spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(dir, file), ...flags], {
      stdio: 'inherit',
    });
    if (r.status !== 0) failed++;
  }
  process.exitCode = failed ? 1 : 0;
}

if (require.main === module) main();
