import type { EvofluxBridge } from '../../preload/api';

declare global {
  interface Window {
    /** Present only in the desktop app (set by the preload); a browser tab talks HTTP instead. */
    evoflux?: EvofluxBridge;
  }
}

export {};
