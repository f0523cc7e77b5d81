/**
 * The listen-stream benchmark's server (`bench/listen.ts` forks it with `--expose-gc`): a tool `touch` that
 * changes the tool list, and a memory report on request over IPC (after a full collection), so the driver can
 * count bytes per open stream, or a heap snapshot (bench/listen-memory.mjs). Guards stay at their defaults except the instance-wide connection cap, which an
 * operator raises for this many listeners; the driver spreads its streams over many loopback addresses so the
 * per-address limits hold as shipped.
 */
import { defineServer, defineTool } from 'toolwire'

const STREAMS = Number(process.env.STREAMS ?? '10000')

let spareOn = true
const server = defineServer({
  name: 'toolwire-listen-bench',
  version: '0.1.0',
  tools: [
    defineTool({ name: 'spare', handler: () => 'spare' }),
    defineTool({
      name: 'touch',
      handler: () => {
        spareOn = !spareOn
        if (spareOn) server.tools.enable('spare')
        else server.tools.disable('spare')
        return 'touched'
      },
    }),
  ],
  // One driver process opens every stream: the per-principal request budget would refuse it, not measure it.
  security: { rateLimit: false },
})

const { serveNode } = await import('toolwire/node')
const running = await serveNode(server, { host: '127.0.0.1', port: 0, maxConnections: STREAMS + 64 })
console.log(`listen bench server on ${running.url}`)

process.on('message', (message) => {
  // bench/listen-memory.mjs: a heap snapshot (taken after a full collection) written where it asks.
  if (typeof message === 'object' && message !== null && 'snapshot' in message) {
    const file = String(message.snapshot)
    void import('node:v8').then(({ writeHeapSnapshot }) => {
      writeHeapSnapshot(file)
      process.send?.({ written: file })
    })
    return
  }
  if (message !== 'memory') return
  const collect = (globalThis as { gc?: () => void }).gc
  collect?.()
  collect?.()
  const usage = process.memoryUsage()
  process.send?.({ rss: usage.rss, heap: usage.heapUsed + usage.external + usage.arrayBuffers })
})
process.on('SIGTERM', () => void running.close().then(() => process.exit(0)))
