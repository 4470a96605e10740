/**
 * The renderer's Content-Security-Policy: only our own bundled scripts and styles, no inline
 * script, no eval, no plugins, no remote anything. The same text is in src/renderer/index.html's
 * meta tag (a test keeps them equal); headers add frame-ancestors, which a meta tag cannot carry.
 */
export const RENDERER_CSP_META =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; object-src 'none'";

export const RENDERER_CSP_HEADER = `${RENDERER_CSP_META}; frame-ancestors 'none'`;
