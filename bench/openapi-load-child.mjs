/**
 * One load of one OpenAPI document, alone in this process (started by bench/openapi-load.ts with
 * `--expose-gc`, plain node: no tsx, so nothing but node and toolwire is in the process). The published entry
 * is imported first and the baseline taken after a forced collection; then `fromOpenAPI` is timed from its
 * call to its tools (the lazy import of the document parser included: a first load pays it). The heap is
 * read after another forced collection with the tools still held, the peak resident set from
 * `process.resourceUsage().maxRSS` (kilobytes). One JSON line on stdout: `node --expose-gc
 * bench/openapi-load-child.mjs <file>`.
 */
import { fromOpenAPI } from 'toolwire/openapi'

const file = process.argv[2]
if (file === undefined || typeof globalThis.gc !== 'function') {
  console.error('usage: node --expose-gc bench/openapi-load-child.mjs <document>')
  process.exit(2)
}

const KIB = 1024
globalThis.gc()
const baseline = { rss: process.resourceUsage().maxRSS * KIB, heap: process.memoryUsage().heapUsed }

const skipped = []
const started = performance.now()
const tools = await fromOpenAPI(file, { onWarning: (warning) => warning.skipped && skipped.push(warning) })
const ms = performance.now() - started

globalThis.gc()
const heap = process.memoryUsage().heapUsed
const rss = process.resourceUsage().maxRSS * KIB
// The tools are read after the collection, so they are held through it.
const names = new Set(tools.map((tool) => tool.config.name))
process.stdout.write(
  `${JSON.stringify({ tools: tools.length, distinct: names.size, skipped: skipped.length, ms, baseline, rss, heap })}\n`,
)
