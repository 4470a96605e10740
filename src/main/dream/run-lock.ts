import path from 'node:path';
import { FileLock, type HeldLock } from '../wiki/file-lock';

/**
 * Serialises Dream across the app, `serve` and CLI processes: one run at a time per data home.
 * In this process a flag answers at once; across processes the lock file in <home>/locks does,
 * and a lock left by a process that died is recovered on the next attempt.
 */
export class DreamLock {
  private readonly file: FileLock;
  private inProcess = false;

  constructor(locksDir: string) {
    this.file = new FileLock(path.join(locksDir, 'dream-run'));
  }

  get heldHere(): boolean {
    return this.inProcess;
  }

  async heldAnywhere(): Promise<boolean> {
    return this.inProcess || (await this.file.isHeld());
  }

  /** Takes the lock (waiting up to waitMs for another process), or returns null if a run is in progress. */
  async acquire(waitMs: number): Promise<HeldLock | null> {
    if (this.inProcess) return null;
    this.inProcess = true;
    try {
      const held = await this.file.acquire('dream run', waitMs);
      if (!held) {
        this.inProcess = false;
        return null;
      }
      return {
        owner: held.owner,
        get lost() {
          return held.lost;
        },
        release: async () => {
          try {
            await held.release();
          } finally {
            this.inProcess = false;
          }
        },
      };
    } catch (e) {
      this.inProcess = false;
      throw e;
    }
  }
}
