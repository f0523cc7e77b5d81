/**
 * `npm run bench:redis`: what one toolwire instance asks of a shared Redis, as figures for capacity
 * planning (docs/scaling.md). Starts a throw-away redis-server on a free loopback port, measures
 * operations per second from this one process with 32 in flight, and the time a published change takes to
 * reach 1, 10 and 100 subscribed buses. Needs `redis-server` on the PATH.
 */
import { ownerKey } from '../src/index.js'
import { RedisChangeBus, RedisHandleStore, RedisRateLimitStore } from '../src/stores/redis/index.js'
// The tests' throw-away redis-server (free loopback port, no persistence, stopped by PID) serves here too.
import { startRedis } from '../test/helpers/redis.js'

const IN_FLIGHT = 32
const SECONDS = 3

async function rate(name: string, operation: (i: number) => Promise<unknown>): Promise<number> {
  let done = 0
  const until = performance.now() + SECONDS * 1000
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, lane) => {
      while (performance.now() < until) await operation(lane * 1_000_000 + done++)
    }),
  )
  const perSecond = Math.round(done / SECONDS)
  console.log(`${name.padEnd(44)} ${String(perSecond).padStart(8)} ops/s`)
  return perSecond
}

const redis = await startRedis()
const url = redis.url
try {
  const limits = await RedisRateLimitStore.connect({ url })
  const bucket = { name: 'requests', points: 1_000_000_000, durationMs: 60_000 }
  await rate('rate limit: consume (one key per caller)', (i) =>
    limits.consume(bucket, ownerKey({ kind: 'user', id: `caller-${i % 1000}` })),
  )
  await limits.close()

  const { Redis } = await import('ioredis')
  const probe = new Redis(url)
  const memory = async (): Promise<number> =>
    Number(/used_memory:(\d+)/.exec(await probe.info('memory'))?.[1] ?? 0)
  const before = await memory()
  const handles = await RedisHandleStore.connect({ url, maxPerOwner: 1_000_000 })
  const ids: string[] = []
  await rate('handles: create', async (i) => {
    const id = crypto.randomUUID()
    ids.push(id)
    await handles.create(
      'bench',
      id,
      ownerKey({ kind: 'user', id: `owner-${i % 100}` }),
      { n: 0, lines: ['tea', 'jam'] },
      600_000,
    )
  })
  console.log(
    `handles: Redis memory per handle (27-byte payload)  ${Math.round(((await memory()) - before) / ids.length)} bytes`,
  )
  const owned = ids
    .map((id, i) => ({ id, owner: ownerKey({ kind: 'user', id: `owner-${i % 100}` }) }))
    .slice(0, 10_000)
  await rate('handles: touch (read, lifetime restarted)', (i) => {
    const handle = owned[i % owned.length]!
    return handles.touch('bench', handle.id, handle.owner)
  })
  await rate('handles: swap (compare-and-swap write)', async (i) => {
    const handle = owned[i % owned.length]!
    const data = await handles.touch('bench', handle.id, handle.owner)
    return handles.swap('bench', handle.id, handle.owner, data, { n: i, lines: ['tea', 'jam'] })
  })
  await handles.close()

  // What the Redis server itself spends per command: the figure that bounds a shared Redis, whatever the
  // number of instances.
  const stats = (await probe.info('commandstats'))
    .split('\n')
    .filter((line) =>
      /evalsha|evalsha_ro|pexpire|zadd|publish|get|set|incr|multi|exec/.test(line.split(':')[0] ?? ''),
    )
  for (const line of stats) {
    const match = /^cmdstat_(\w+):calls=(\d+),usec=\d+,usec_per_call=([\d.]+)/.exec(line.trim())
    if (match)
      console.log(
        `redis-server: ${match[1]!.padEnd(10)} ${match[3]!.padStart(8)} µs per call (${match[2]} calls)`,
      )
  }
  probe.disconnect()

  for (const listeners of [1, 10, 100]) {
    const buses = await Promise.all(
      Array.from({ length: listeners + 1 }, () => RedisChangeBus.connect({ url, channel: 'bench' })),
    )
    const [publisher, ...subscribers] = buses as [RedisChangeBus, ...RedisChangeBus[]]
    const samples: number[] = []
    let pending = 0
    let arrived: () => void = () => {}
    const stops = subscribers.map((bus) => bus.subscribe(() => --pending === 0 && arrived()))
    for (let round = 0; round < 50; round++) {
      pending = listeners
      const sent = performance.now()
      await new Promise<void>((resolve) => {
        arrived = resolve
        void publisher.publish({ type: 'tools/list_changed' })
      })
      samples.push(performance.now() - sent)
    }
    for (const stop of stops) stop()
    samples.sort((a, b) => a - b)
    console.log(
      `change reaches ${String(listeners).padStart(3)} instances: median ${samples[25]!.toFixed(2)} ms, p98 ${samples[48]!.toFixed(2)} ms`,
    )
    await Promise.all(buses.map((bus) => bus.close()))
  }
} finally {
  await redis.stop()
}
