import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * Layer direction: wire -> schema -> protocol -> features -> legacy/security/handles -> transports/stores, with
 * the server assembly (server.ts, index.ts) on top, and the client beside the server using only wire and
 * schema. `legacy` (2025-era sessions) sits on the features it serves; transports use its types and helpers
 * (`transports/http/legacy.ts`, stdio) and get the server's engine and session codec through `DualEraHandler`
 * (`transports/dual-era.ts`); nothing below it (nor stores, nor the client) imports it.
 * Each directory lists the directories it must not import from.
 */
const LAYERS = {
  wire: [
    'schema',
    'protocol',
    'features',
    'security',
    'handles',
    'legacy',
    'transports',
    'stores',
    'client',
    'proxy',
    'cli',
    'demo',
  ],
  schema: [
    'protocol',
    'features',
    'security',
    'handles',
    'legacy',
    'transports',
    'stores',
    'client',
    'proxy',
    'cli',
    'demo',
  ],
  protocol: [
    'features',
    'security',
    'handles',
    'legacy',
    'transports',
    'stores',
    'client',
    'proxy',
    'cli',
    'demo',
  ],
  features: ['security', 'handles', 'legacy', 'transports', 'stores', 'client', 'proxy', 'cli', 'demo'],
  security: ['handles', 'legacy', 'transports', 'stores', 'client', 'proxy', 'cli', 'demo'],
  handles: ['security', 'legacy', 'transports', 'stores', 'client', 'proxy', 'cli', 'demo'],
  transports: ['features', 'security', 'handles', 'stores', 'client', 'proxy', 'cli', 'demo'],
  stores: ['legacy', 'transports', 'client', 'proxy', 'cli', 'demo'],
  legacy: ['security', 'handles', 'transports', 'stores', 'client', 'proxy', 'cli', 'demo'],
  // fromOpenAPI makes tool definitions: it sits on features, beside the server assembly, never in it.
  openapi: ['security', 'handles', 'legacy', 'transports', 'stores', 'client', 'proxy', 'cli', 'demo'],
  client: [
    'protocol',
    'features',
    'security',
    'handles',
    'legacy',
    'transports',
    'stores',
    'proxy',
    'cli',
    'demo',
  ],
}
/**
 * The proxy sits on the server assembly and the client (it serves what a client reads), below only the CLI
 * and the demo; its rule is separate because it may import server.ts.
 */
const proxyRule = {
  files: ['src/proxy/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: '^\\.\\.?/(\\.\\./)*(cli|demo)/|^\\.\\.?/(\\.\\./)*index\\.js$',
            message:
              'src/proxy sits below the CLI and the demo; see ARCHITECTURE.md for the layer direction.',
          },
        ],
      },
    ],
  },
}
const layerRules = Object.entries(LAYERS).map(([layer, forbidden]) => ({
  files: [`src/${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^\\.\\.?/(\\.\\./)*(${forbidden.join('|')})/|^\\.\\.?/(\\.\\./)*(server|index)\\.js$`,
            message: `src/${layer} sits below this module; see ARCHITECTURE.md for the layer direction.`,
          },
        ],
      },
    ],
  },
}))

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'results/**',
      'coverage/**',
      '.conformance/**',
      'bench/.build/**',
      'docs/api/**',
      'docs/.vitepress/cache/**',
      'docs/.vitepress/dist/**',
      '.snippets/**',
    ],
  },
  { ignores: ['src/**/*.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**', 'src/demo/**'],
    rules: { 'no-console': 'error' },
  },
  {
    // One error table: JSON-RPC error codes are named in src/wire/errors.ts and used by name everywhere else.
    // Tests are exempt on purpose: they assert the numbers on the wire, independently of the table.
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    ignores: ['src/wire/errors.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "UnaryExpression[operator='-'][argument.value>=32000][argument.value<=32768]",
          message: 'Use ErrorCode from src/wire/errors.ts instead of a literal JSON-RPC error code.',
        },
        {
          selector: 'Literal[value=/-32[0-9]{3}/], TemplateElement[value.raw=/-32[0-9]{3}/]',
          message: 'Build error bodies with the factories in src/wire/errors.ts, not by hand.',
        },
      ],
    },
  },
  ...layerRules,
  proxyRule,
)
