/** lru-cache, loaded with the first limit counted or token verified (wire/lazy-modules.ts says why). */
import type { LRUCache } from 'lru-cache'
import { LazyModules } from '../wire/lazy-modules.js'

export type LRUCacheClass = typeof LRUCache

export const lazyLru = new LazyModules<LRUCacheClass>(
  (require) => (require('lru-cache') as { LRUCache: LRUCacheClass }).LRUCache,
  async () => (await import('lru-cache')).LRUCache,
)
