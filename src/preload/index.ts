import { contextBridge, ipcRenderer } from 'electron';
import { IPC_CHANGED_CHANNEL, IPC_CHANNEL, type ChangeNotice, type EvofluxBridge } from './api';

/**
 * The renderer's only way into the app: one function, one channel. Everything it sends is
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
};

contextBridge.exposeInMainWorld('evoflux', Object.freeze(bridge));
