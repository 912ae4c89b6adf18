// One flat config for the whole repo (STYLE.md §10).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// The package map as lint (docs/internal/architecture.md "Dependency rule"): which of our packages each one may
// import. A library never imports an app; the codec and the state machine import nothing of ours but errors.
// In flat config a later `no-restricted-imports` replaces an earlier one, so every entry repeats the `src` ban.
// Tests and app-bound test helpers (apps/*/src/testing) are exempt from the budgets and boundaries.
const testFiles = ['**/*.test.ts', '**/*.test-d.ts', '**/testing/**'];
const srcBan = { group: ['@mcppipe/*/src', '@mcppipe/*/src/*'], message: 'Import the package, not its src.' };
const ours = ['@mcppipe/*', 'mcppipe', 'mcppipe/*'];
const allowed = {
  errors: [],
  namespace: ['errors'],
  'upstream-state': ['errors'],
  policy: ['errors'],
  store: ['errors', 'policy'],
  events: ['errors', 'store', 'upstream-state'],
  config: ['errors', 'namespace', 'policy'],
  http: ['errors'],
  oauth: ['errors', 'namespace', 'store'],
  tunnel: ['errors', 'namespace', 'upstream-state'],
  capture: ['errors', 'namespace'],
  supervisor: ['errors', 'config', 'upstream-state'],
  hub: ['errors', 'namespace', 'policy', 'supervisor', 'upstream-state', 'aggregator'],
  aggregator: ['errors', 'namespace', 'http', 'policy', 'supervisor', 'upstream-state'],
};
// @mcppipe/test-utils (test/helpers) may import only packages whose tests do not import it (no cycle): a helper that
// needs the code under test takes it as an argument (test/helpers/README.md).
const testUtilsAllowed = ['errors', 'tunnel', 'upstream-state'];
const boundary = ({ pkg, deps, files, ignores }) => ({
  files,
  ignores,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          srcBan,
          {
            group: [
              ...ours,
              ...deps.flatMap((d) => [`!@mcppipe/${d}`, `!@mcppipe/${d}/*`]),
              `!@mcppipe/${pkg}`,
            ],
            message:
              `@mcppipe/${pkg} may import only ${deps.length ? deps.map((d) => `@mcppipe/${d}`).join(', ') : 'nothing of ours'}` +
              ' (libraries never import apps; see docs/internal/architecture.md "Dependency rule").',
          },
        ],
      },
    ],
  },
});
const boundaries = [
  ...Object.entries(allowed).map(([pkg, deps]) =>
    boundary({ pkg, deps, files: [`packages/${pkg}/src/**/*.ts`], ignores: testFiles }),
  ),
  boundary({ pkg: 'test-utils', deps: testUtilsAllowed, files: ['test/helpers/src/**/*.ts'], ignores: [] }),
];

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '**/.turbo/**', 'bench/results/**'],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        structuredClone: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'max-params': ['error', 3],
      'no-restricted-imports': [
        'error',
        {
          patterns: [srcBan],
        },
      ],
    },
  },
  {
    files: ['packages/*/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-console': 'error' },
  },
  ...boundaries,
  // An app never imports the other app.
  ...[
    ['cli', '@mcppipe/gateway'],
    ['gateway', 'mcppipe'],
  ].map(([app, other]) => ({
    files: [`apps/${app}/src/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            srcBan,
            {
              group: [other, `${other}/*`],
              message: 'An app never imports another app: move the code to a package.',
            },
          ],
        },
      ],
    },
  })),
  // Size budgets (STYLE.md §4, §9): code lines only (blank lines and comments are not counted, so TSDoc is never
  // what pushes a file over). Tests are exempt.
  {
    files: ['packages/*/src/**/*.ts'],
    ignores: testFiles,
    rules: { 'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['apps/*/src/**/*.ts', 'apps/*/src/**/*.tsx'],
    ignores: testFiles,
    rules: { 'max-lines': ['error', { max: 150, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**'],
    rules: { 'max-params': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  prettier,
);
