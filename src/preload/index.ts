import { contextBridge, ipcRenderer } from 'electron';
import { IPC_CHANGED_CHANNEL, IPC_CHANNEL, IPC_PICK_IMPORT_FILE, type ChangeNotice, type EvofluxBridge } from './api';

/**
 * The renderer's only way into the app: one function, one channel (and the native file dialog
 * for Import history, which answers a path the window then imports with that same function). Everything it sends is
 * validated in main against the contract, so this stays a pass-through (a sandboxed preload
 * can load nothing but 'electron' anyway).
 */
const bridge: EvofluxBridge = {
  call: (name, input) => ipcRenderer.invoke(IPC_CHANNEL, String(name), input ?? {}),
  onChanged: (listener) => {
    const handler = (_event: unknown, notice: ChangeNotice) => listener(notice);
    ipcRenderer.on(IPC_CHANGED_CHANNEL, handler);
    return () => void ipcRenderer.removeListener(IPC_CHANGED_CHANNEL, handler);
  },
  pickImportFile: () => ipcRenderer.invoke(IPC_PICK_IMPORT_FILE),
};

contextBridge.exposeInMainWorld('evoflux', Object.freeze(bridge));
