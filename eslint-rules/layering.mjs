// The project's layering, as a lint rule (eslint.config.mjs turns it on for src/):
// - only the Electron shell (src/main/index.ts) and the preload import `electron`, so everything
//   else runs and is tested under plain Node;
// - the engine (store, memory, dream, wiki, workers) never imports a door (cli, api, commands)
//   or the renderer: doors call the engine, never the reverse;
// - store/ imports nothing from memory/: the store is the bottom layer the engine is built on.
// Relative imports are resolved against the importing file, so `../memory/x` and
// `../../memory/x` are judged by where they land, not by how they are spelled.
import path from 'node:path';

const ENGINE = ['store', 'memory', 'dream', 'wiki', 'workers'].map((d) => `src/main/${d}`);
const DOORS = ['cli', 'api', 'commands'].map((d) => `src/main/${d}`);
const RENDERER = 'src/renderer';
const ELECTRON_ALLOWED = (file) => file === 'src/main/index.ts' || within(file, 'src/preload');

/** True when `file` (repo-relative, forward slashes, extension optional) is `dir` or below it. */
function within(file, dir) {
  const bare = file.replace(/\.(tsx?|mjs|cjs|js)$/, '');
  return bare === dir || file.startsWith(`${dir}/`);
}

const ownerOf = (file, dirs) => dirs.find((d) => within(file, d)) ?? null;

/** Why importing `target` from `file` breaks the layering, or null. */
export function layeringProblem(file, target) {
  const engine = ownerOf(file, ENGINE);
  if (!engine) return null;
  const door = ownerOf(target, DOORS);
  if (door) return `${engine} is engine code and may not import the door ${door}; doors call the engine`;
  if (within(target, RENDERER)) return `${engine} is engine code and may not import the renderer`;
  if (engine === 'src/main/store' && within(target, 'src/main/memory')) {
    return 'src/main/store is the bottom layer and may not import src/main/memory';
  }
  return null;
}

export const layeringRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps electron in the shell and the engine below the doors and the store below memory' },
    schema: [],
    messages: {
      electron:
        "Only src/main/index.ts and src/preload/ may import 'electron' (everything else must run under plain Node).",
      layer: "{{problem}} (imports '{{source}}').",
    },
  },
  create(context) {
    const root = context.cwd;
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    function check(node, source) {
      if (typeof source !== 'string') return;
      if (source === 'electron' || source.startsWith('electron/')) {
        if (!ELECTRON_ALLOWED(file)) context.report({ node, messageId: 'electron' });
        return;
      }
      if (!source.startsWith('.')) return;
      const target = path
        .relative(root, path.resolve(path.dirname(context.filename), source))
        .split(path.sep)
        .join('/');
      const problem = layeringProblem(file, target);
      if (problem) context.report({ node, messageId: 'layer', data: { problem, source } });
    }
    const fromSource = (node) => check(node, node.source?.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source.value : undefined),
      TSImportEqualsDeclaration: (node) =>
        check(
          node,
          node.moduleReference.type === 'TSExternalModuleReference' ? node.moduleReference.expression.value : undefined,
        ),
      CallExpression: (node) => {
        if (node.callee.type !== 'Identifier' || node.callee.name !== 'require') return;
        const arg = node.arguments[0];
        if (arg?.type === 'Literal') check(node, arg.value);
      },
    };
  },
};

export default { rules: { layering: layeringRule } };
