// Lint rules: typescript-eslint's recommended set and React's hooks rules, plus four
// type-aware rules that hold the async and union code to account. Formatting is Prettier's
// (.prettierrc.json), so no stylistic rules here.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Every TypeScript file belongs to one of these programs (see `npm run typecheck`).
const projects = ['./tsconfig.json', './tsconfig.electron.json', './src-renderer/tsconfig.json', './test/unit/renderer/tsconfig.json'];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.runtime/**', 'test-results/**', '.scratch/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src-main/**/*.ts', 'src-shared/**/*.ts', 'src-renderer/**/*.{ts,tsx}', 'test/**/*.{ts,tsx}', 'bench/**/*.ts', 'bin/*.ts'],
    languageOptions: { parserOptions: { project: projects, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its rejection; one passed where a callback's result is
      // ignored (an event handler, a forEach) does the same.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A new member of a union must be handled wherever the union is switched on.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}', 'test/unit/renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    // The classic hooks rules; the React Compiler's rules (refs during render, memoizable
    // libraries) would need a compiler this app does not use.
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
);
