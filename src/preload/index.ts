import { contextBridge, ipcRenderer } from 'electron';
import { IPC_CHANNEL, type EvofluxBridge } from './api';

/**
 * The renderer's only way into the app: one function, one channel. Everything it sends is
 * validated in main against the contract, so this stays a pass-through (a sandboxed preload
 * can load nothing but 'electron' anyway).
 */
const bridge: EvofluxBridge = {
  call: (name, input) => ipcRenderer.invoke(IPC_CHANNEL, String(name), input ?? {}),
};

contextBridge.exposeInMainWorld('evoflux', Object.freeze(bridge));
