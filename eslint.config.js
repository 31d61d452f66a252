import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.tmp/**', 'test-results/**', 'playwright-report/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: globals.browser },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // Server code reaches the environment only through config/, processes only through engine/ and cli/.
    files: ['apps/server/src/**/*.ts'],
    ignores: ['apps/server/src/config/**', 'apps/server/src/engine/**', 'apps/server/src/cli/**', 'apps/server/src/**/*.test.ts', 'apps/server/src/test/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'node:child_process', message: 'Spawn processes from engine/ only.' }] }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through config/.' }],
    },
  },
  {
    // One-way: the engine declares the ports it needs (engine/ports.ts); the composition root
    // (services.ts and wiring/) wires the modules into them.
    files: ['apps/server/src/engine/**/*.ts'],
    ignores: ['apps/server/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/modules/**'], message: 'The engine uses its ports (engine/ports.ts), never modules/.' }] }],
    },
  },
  {
    files: ['apps/server/src/modules/**/*.ts'],
    ignores: ['apps/server/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'node:child_process', message: 'Spawn processes from engine/ only.' }],
          patterns: [{ group: ['**/engine/**', '!**/engine/ports.js'], message: 'Modules implement the engine ports (engine/ports.ts) and never import engine internals.' }],
        },
      ],
    },
  },
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: globals.node },
  },
);
