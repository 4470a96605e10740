import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { properLockfile } from '../lazy-deps';
import { processLog } from '../log';
import { ensurePrivateDir, replacePrivateFileSync } from '../private-fs';

/** Who holds a lock, written next to it so a waiter can tell a live holder from a dead one. */
export interface LockOwner {
  pid: number;
  host: string;
  token: string;
  acquiredAt: number;
  purpose: string;
}

export interface HeldLock {
  owner: LockOwner;
  /** True once another process took the lock over (it looked stale); the holder should stop writing. */
  readonly lost: boolean;
  release(): Promise<void>;
}

export interface FileLockOptions {
  /** A holder that stops refreshing its lock for this long is presumed gone (proper-lockfile mtime check). */
  staleMs?: number;
}

/** Tokens of the locks this process holds, to tell our own live lock from a leftover with a reused pid. */
const heldTokens = new Set<string>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A cross-process exclusive lock on a lock directory (proper-lockfile: atomic mkdir, refreshed
 * mtime, stale takeover), plus an owner file naming the holding pid. A lock whose holder died on
 * this machine (SIGKILL, power loss of the app) is recovered at once instead of after the stale
 * period; a holder on another host, or one we cannot judge, is left to the mtime rule.
 */
export class FileLock {
  readonly lockDir: string;
  readonly ownerFile: string;
  private readonly recoverTarget: string;
  private readonly staleMs: number;

  constructor(
    readonly base: string,
    options: FileLockOptions = {},
  ) {
    this.lockDir = `${base}.lock`;
    this.ownerFile = `${base}.owner.json`;
    this.recoverTarget = `${base}.recover`;
    this.staleMs = Math.max(options.staleMs ?? 10_000, 2000);
    ensurePrivateDir(path.dirname(base));
  }

  /** The recorded holder, or null when the lock is free or its owner file is unreadable. */
  readOwner(): LockOwner | null {
    try {
      const o = JSON.parse(readFileSync(this.ownerFile, 'utf8')) as LockOwner;
      return typeof o.pid === 'number' && typeof o.token === 'string' ? o : null;
    } catch {
      return null;
    }
  }

  /** Whether some process (this one included) holds the lock right now. */
  async isHeld(): Promise<boolean> {
    const held = await properLockfile().check(this.base, {
      lockfilePath: this.lockDir,
      realpath: false,
      stale: this.staleMs,
    });
    if (!held) return false;
    return !this.ownerIsDead(this.readOwner());
  }

  /**
   * Takes the lock, waiting up to waitMs (0 = one attempt). Returns null when it stayed busy.
   */
  async acquire(purpose: string, waitMs: number): Promise<HeldLock | null> {
    const deadline = Date.now() + waitMs;
    let delay = 5;
    for (;;) {
      const held = await this.tryOnce(purpose);
      if (held) return held;
      if (await this.recoverDeadOwner()) continue;
      if (Date.now() >= deadline) return null;
      await sleep(Math.min(delay, Math.max(1, deadline - Date.now())) * (0.5 + Math.random()));
      delay = Math.min(delay * 2, 100);
    }
  }

  private async tryOnce(purpose: string): Promise<HeldLock | null> {
    let lost = false;
    let release: () => Promise<void>;
    try {
      release = await properLockfile().lock(this.base, {
        lockfilePath: this.lockDir,
        realpath: false,
        stale: this.staleMs,
        retries: 0,
        onCompromised: (err) => {
          lost = true;
          processLog.error(`lock ${this.lockDir} was taken over: ${err.message}`);
        },
      });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ELOCKED') return null;
      throw e;
    }
    // proper-lockfile creates its marker folder with the umask's mode; it holds nothing, but the
    // home keeps every folder private.
    ensurePrivateDir(this.lockDir);
    const owner: LockOwner = {
      pid: process.pid,
      host: os.hostname(),
      token: randomUUID(),
      acquiredAt: Date.now(),
      purpose,
    };
    heldTokens.add(owner.token);
    try {
      replacePrivateFileSync(this.ownerFile, JSON.stringify(owner));
    } catch (e) {
      heldTokens.delete(owner.token);
      await release().catch(() => {});
      throw e;
    }
    let released = false;
    return {
      owner,
      get lost() {
        return lost;
      },
      release: async () => {
        if (released) return;
        released = true;
        heldTokens.delete(owner.token);
        // Owner first: a crash between the two steps leaves an anonymous lock that goes stale, never
        // an owner file that vouches for a lock someone else now holds.
        if (this.readOwner()?.token === owner.token) rmSync(this.ownerFile, { force: true });
        if (!lost) await release().catch(() => {});
      },
    };
  }

  private ownerIsDead(owner: LockOwner | null): boolean {
    if (!owner || owner.host !== os.hostname()) return false;
    if (owner.pid === process.pid) return !heldTokens.has(owner.token);
    return !pidAlive(owner.pid);
  }

  /**
   * Removes the lock of a holder that died. Done under a second short lock so two waiters cannot
   * both judge the same dead owner and the second remove the first one's fresh lock.
   */
  private async recoverDeadOwner(): Promise<boolean> {
    if (!this.ownerIsDead(this.readOwner())) return false;
    let releaseRecover: () => Promise<void>;
    try {
      releaseRecover = await properLockfile().lock(this.recoverTarget, {
        realpath: false,
        stale: 2000,
        retries: 0,
        onCompromised: () => {},
      });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ELOCKED') return false;
      throw e;
    }
    try {
      const owner = this.readOwner();
      if (!this.ownerIsDead(owner)) return false;
      rmSync(this.ownerFile, { force: true });
      rmSync(this.lockDir, { recursive: true, force: true });
      processLog.warn(`recovered ${path.basename(this.lockDir)} left by dead process ${owner!.pid}`);
      return true;
    } finally {
      await releaseRecover().catch(() => {});
    }
  }
}
