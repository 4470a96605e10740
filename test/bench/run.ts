/**
 * `npm run bench`: runs every test/bench/*.bench.ts in its own process, one after another (two
 * cores: parallel benchmarks would measure each other), and prints their figures. Pass names
 * to run a subset: `npm run bench -- store recall` (a bench's exact name runs that bench only, so
 * `locomo` runs locomo.bench.ts and not also locomo-extraction.bench.ts; a part of a name runs
 * every bench whose file name contains it). Flags (`--data FILE`, `--name=value`) are
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

/**
 * The bench files a list of names selects: a name that is a bench's own name ("locomo" for
 * locomo.bench.ts) selects that bench only; any other name, every bench whose file name contains
 * it ("locomo-" runs locomo-extraction.bench.ts); no names, every bench.
 */
export function selectBenches(files: readonly string[], names: readonly string[]): string[] {
  const benches = files.filter((f) => f.endsWith('.bench.ts'));
  if (names.length === 0) return [...benches].sort();
  const picked = benches.filter((f) =>
    names.some((w) => (benches.includes(`${w}.bench.ts`) ? f === `${w}.bench.ts` : f.includes(w))),
  );
  return picked.sort();
}

function main(): void {
  const dir = __dirname;
  const { names, flags } = splitArguments(process.argv.slice(2));
  const files = selectBenches(readdirSync(dir), names);

  let failed = 0;
  for (const file of files) {
    console.log(`\n=== ${file}`);
    // --expose-gc: a bench may collect its own garbage between measured series (agent/measure.ts).
    const r = spawnSync(process.execPath, ['--expose-gc', '--require', 'tsx/cjs', path.join(dir, file), ...flags], {
      stdio: 'inherit',
    });
    if (r.status !== 0) failed++;
  }
  process.exitCode = failed ? 1 : 0;
}

if (require.main === module) main();
