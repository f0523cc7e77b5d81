/**
 * The documentation site (`npm run docs:build`). VitePress fails the build on a dead link, which keeps the
 * pages, the examples they show and the generated API reference (TypeDoc, into docs/api/) consistent.
 */
import { defineConfig } from 'vitepress'

const guide = [
  { text: 'Getting started', link: '/getting-started' },
  { text: 'Defining tools', link: '/tools' },
  { text: 'Tool search', link: '/tool-search' },
  { text: 'Schemas', link: '/schemas' },
  { text: 'Input rounds', link: '/input' },
  { text: 'Listen for changes', link: '/listen' },
  { text: 'Prompts and resources', link: '/prompts-resources' },
  { text: 'Long-running tasks', link: '/tasks' },
  { text: 'MCP Apps', link: '/apps' },
  { text: 'Skills', link: '/skills' },
  { text: 'Server Card', link: '/server-card' },
  { text: 'State handles', link: '/handles' },
  { text: 'Transports and where it runs', link: '/transports' },
  { text: '2025-era peers', link: '/protocol-versions' },
]
const use = [
  { text: 'Client', link: '/client' },
  { text: 'CLI', link: '/cli' },
  { text: 'Inspector', link: '/inspector' },
  { text: 'Bridge and gateway', link: '/bridge' },
  { text: 'HTTP APIs (OpenAPI)', link: '/openapi' },
  { text: 'Examples', link: '/examples' },
]
const operate = [
  { text: 'Security', link: '/security' },
  { text: 'Several instances', link: '/instances' },
  { text: 'Scaling to 100 instances', link: '/scaling' },
  { text: 'Observability', link: '/observability' },
  { text: 'Performance', link: '/performance' },
  { text: 'Errors', link: '/errors' },
]

export default defineConfig({
  title: 'toolwire',
  description: 'MCP 2026-07-28 tools: a fast, strict, secure server, a spec-complete client, and a CLI.',
  cleanUrls: true,
  lastUpdated: false,
  // The local search index and the generated API pages make large chunks; a docs site loads them lazily.
  vite: { build: { chunkSizeWarningLimit: 4096 } },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/getting-started' },
      { text: 'Examples', link: '/examples' },
      { text: 'API', link: '/api-entry-points' },
    ],
    sidebar: [
      { text: 'Guide', items: guide },
      { text: 'Use', items: use },
      { text: 'Operate', items: operate },
      { text: 'API reference', items: [{ text: 'Entry points', link: '/api-entry-points' }] },
    ],
    search: { provider: 'local' },
    outline: [2, 3],
  },
})
