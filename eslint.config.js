// eslint with typescript-eslint's recommended rules, plus the house style (no semicolons, single quotes).
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'drizzle/', '.data/', 'coverage/', '.tap/', 'test/artifacts/', 'bench/results/', 'dist/', '.cache/', 'client/src/schema.d.ts', 'client/dist/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      semi: ['error', 'never'],
      quotes: ['error', 'single', { avoidEscape: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-empty': ['error', { allowEmptyCatch: true }]
    }
  }
)
