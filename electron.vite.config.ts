import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { escapeBeyondLatin1 } from './scripts/escape-beyond-latin1';

/**
 * `npm run dev` only: Vite's dev server injects an inline React Refresh preamble and talks to
 * the page over a websocket, which the strict meta CSP would block. Builds keep the strict policy.
 */
const relaxCspForDevServer = (): Plugin => ({
  name: 'evoflux-dev-csp',
  apply: 'serve',
  transformIndexHtml: (html) =>
    html.replace(
      /(http-equiv="Content-Security-Policy"\s+content=")[^"]*"/,
      `$1default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self' ws:; img-src 'self' data:"`,
    ),
});

/** The main bundle's sources stay one byte a character in V8 (scripts/escape-beyond-latin1.ts). */
const oneByteSources = (): Plugin => ({
  name: 'evoflux-one-byte-sources',
  // After every renderChunk hook: Vite's own re-prints strings with the characters themselves.
  generateBundle(_, bundle) {
    for (const file of Object.values(bundle)) if (file.type === 'chunk') file.code = escapeBeyondLatin1(file.code);
  },
});

/**
 * Three bundles: main (Node, CommonJS, engine included), preload (sandboxed, CommonJS, may only
 * require 'electron') and the renderer (a plain web app, also served by `serve` over HTTP).
 * Building needs no Electron binary; only `npm start` / `npm run dev` do.
 */
export default defineConfig({
  main: {
    plugins: [oneByteSources()],
    build: {
      outDir: 'out/main',
      // Every pure-JS package is bundled (tree-shaken, no module resolution at start-up: the CLI
      // starts in about half the time it takes with node_modules require()s); only the native
      // better-sqlite3 (and Electron itself) stay real require()s from node_modules.
      externalizeDeps: false,
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          // The CLI (and through it `serve` and `mcp`) runs as plain Node from this file; bin/ requires it.
          cli: resolve(__dirname, 'src/main/cli.ts'),
          // Workers (threads, and the extractor's child process) load from their own file next to
          // index.js (see workers/worker-file.ts).
          'read-lane.worker': resolve(__dirname, 'src/main/workers/read-lane.worker.ts'),
          'extraction.worker': resolve(__dirname, 'src/main/workers/extraction.worker.ts'),
        },
        external: ['electron', 'better-sqlite3'],
        output: { format: 'cjs', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload cannot require anything but 'electron', so nothing may stay external.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].js', inlineDynamicImports: true },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    plugins: [react(), relaxCspForDevServer()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      emptyOutDir: true,
      minify: true,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
  },
});
