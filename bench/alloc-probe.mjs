/**
 * Preloaded (`--import`) into a benchmark server started by `bench/alloc.ts`, with `--expose-gc`. Answers
 * the parent's IPC messages: `mark` collects garbage and notes the heap; `measure` reports the heap growth
 * since the mark and how many collections ran in between (growth is only a byte count when none ran);
 * `sample` / `report` run the V8 sampling heap profiler over collected objects too, so every allocation site
 * shows, not only what survived. Nothing here runs per request.
 */
import { Session } from 'node:inspector/promises'
import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'

const session = new Session()
session.connect()
let collections = 0
new PerformanceObserver((list) => {
  collections += list.getEntries().length
}).observe({ entryTypes: ['gc'] })

let marked = 0

/** Self bytes per allocating frame with its two callers (`leaf < caller < caller's caller`), largest first. */
function sites(profile) {
  const totals = new Map()
  const name = (frame) =>
    `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules|src|dist|bench)\//, '$1/')}:${frame.lineNumber + 1}`
  const walk = (node, callers) => {
    const here = name(node.callFrame)
    if (node.selfSize > 0) {
      const key = [here, ...callers.slice(0, 2)].join(' < ')
      totals.set(key, (totals.get(key) ?? 0) + node.selfSize)
    }
    for (const child of node.children) walk(child, [here, ...callers])
  }
  walk(profile.head, [])
  return [...totals.entries()].sort((x, y) => y[1] - x[1])
}

process.on('message', async (message) => {
  if (message === 'mark') {
    globalThis.gc()
    // The observer hears of that collection a little later: let it, then count from zero.
    await new Promise((resolve) => setTimeout(resolve, 100))
    collections = 0
    marked = getHeapStatistics().used_heap_size
    process.send({ marked })
  } else if (message === 'measure') {
    const grown = getHeapStatistics().used_heap_size - marked
    process.send({ grown, collections })
  } else if (message === 'sample') {
    globalThis.gc()
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 32,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    })
    process.send({ sampling: true })
  } else if (message === 'report') {
    const { profile } = await session.post('HeapProfiler.stopSampling')
    const all = sites(profile)
    const total = all.reduce((sum, [, bytes]) => sum + bytes, 0)
    process.send({ total, sites: all.slice(0, 60) })
  }
})
