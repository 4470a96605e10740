import { contextBridge, ipcRenderer } from 'electron';
import { IPC_CHANNEL, IPC_PICK_IMPORT_FILE, type EvofluxBridge } from './api';

/**
 * The renderer's only way into the app: one function, one channel (and the native file dialog
 * for Import history, which answers a path the window then imports with that same function). Everything it sends is
 * validated in main against the contract, so this stays a pass-through (a sandboxed preload
 * can load nothing but 'electron' anyway).
 */
const bridge: EvofluxBridge = {
  call: (name, input) => ipcRenderer.invoke(IPC_CHANNEL, String(name), input ?? {}),
  pickImportFile: () => ipcRenderer.invoke(IPC_PICK_IMPORT_FILE),
};

contextBridge.exposeInMainWorld('evoflux', Object.freeze(bridge));
