// Lint for the whole repository: TypeScript rules, React hooks in the renderer, and the limits
// that keep functions readable. Formatting is Prettier's job (`npm run format`), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import layering from './eslint-rules/layering.mjs';

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', '.cache/', 'coverage/', 'test/e2e/screenshots/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-require-imports': 'off',
      'no-sequences': 'error',
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      complexity: ['warn', 15],
      'max-lines-per-function': ['warn', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Which folder may import which: see eslint-rules/layering.mjs.
    files: ['src/**/*.{ts,tsx}'],
    plugins: { evoflux: layering },
    rules: { 'evoflux/layering': 'error' },
  },
  {
    // The processes that stay up (server, worker threads, the app's main process) keep ICU's
    // locale data resident once they touch it: see src/shared/locale-free.ts.
    files: ['src/main/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString', 'localeCompare'].map((property) => ({
          property,
          message: 'Use src/shared/locale-free.ts: locale formatting keeps MBs of ICU data resident.',
        })),
      ],
      'no-restricted-globals': [
        'error',
        { name: 'Intl', message: 'Locale data stays resident: see src/shared/locale-free.ts.' },
      ],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // Tests describe scenarios in long functions; the limits are for product code.
    files: ['test/**', 'examples/**', 'scripts/**'],
    rules: { complexity: 'off', 'max-lines-per-function': 'off' },
  },
  prettier,
);
