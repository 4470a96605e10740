import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEngine, type Engine, type EngineOptions } from '../../src/main/engine';
import { ManualClock } from '../../src/shared/clock';
import { dispatch } from '../../src/main/commands/dispatch';
import { OWNER } from '../../src/main/commands/principal';
import type { CommandName, Contract, InputOf, OutputOf } from '../../src/shared/contract';

/** A fresh data home in the OS temp folder; removed by cleanup(). */
export function tempHome(prefix = 'evoflux-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestEngine {
  engine: Engine;
  clock: ManualClock;
  home: string;
  /** Calls a contract command exactly as a door would. */
  run<N extends CommandName>(name: N, input: InputOf<Contract[N]>): Promise<OutputOf<Contract[N]>>;
  close(): Promise<void>;
}

/** A real engine on a real SQLite file in a temp home, with a manual clock. */
export function openTestEngine(options: Partial<EngineOptions> = {}): TestEngine {
  const home = options.home ? { dir: options.home, cleanup: () => {} } : tempHome();
  const clock = (options.clock as ManualClock) ?? new ManualClock();
  const engine = openEngine({ ...options, home: home.dir, clock });
  return {
    engine,
    clock,
    home: home.dir,
    run: (name, input) => dispatch(engine, name, input, OWNER),
    close: async () => {
      await engine.close();
      home.cleanup();
    },
  };
}

/** Temp homes and engines a test opens, all closed and removed by one `release()` in afterEach. */
export function testResources() {
  const engines: TestEngine[] = [];
  const homes: { cleanup(): void }[] = [];
  return {
    home(): string {
      const h = tempHome();
      homes.push(h);
      return h.dir;
    },
    engine(options: Partial<EngineOptions> = {}): TestEngine {
      const t = openTestEngine(options);
      engines.push(t);
      return t;
    },
    async release(): Promise<void> {
      for (const t of engines.splice(0)) await t.close();
      homes.splice(0).forEach((h) => h.cleanup());
    },
  };
}
