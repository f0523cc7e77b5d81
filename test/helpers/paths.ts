/** Paths tests need, from the repository root (computed once, without `new URL(literal, import.meta.url)`). */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const CLI = join(ROOT, 'dist', 'cli', 'main.js')
export const testServer = (name: string): string => join(ROOT, 'test', 'servers', name)
/** The reference server the official SDK publishes (`@modelcontextprotocol/server-everything`), run with node. */
export const EVERYTHING_SERVER = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
)
