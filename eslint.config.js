// Lint: ESLint's and typescript-eslint's recommended rules; formatting is prettier's job.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'
import reactHooks from 'eslint-plugin-react-hooks'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test-output/', 'console/src/api/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // Unused names are the compiler's to report (noUnusedLocals); `_`-prefixed ones are deliberate.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // A `let` set once after closures that read it later were made (lazy wiring) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `interface X extends Y {}` names a derived type so that editors and declarations show the name.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // Migrations take Kysely<any> (the schema of their moment, not today's); tests reach into loose JSON.
    files: ['src/store/migrations/**', '**/*.test.ts', 'src/test-support/**', 'test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The console runs in the browser, with React's rules of hooks.
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    // No React Compiler runs here: its warning about libraries it can't memoize does not apply.
    rules: { ...reactHooks.configs.recommended.rules, 'react-hooks/incompatible-library': 'off' },
  },
)
