/**
 * Memory per open listen stream in counted bytes (the fan-out row of `npm run bench:instructions`): the
 * server runs in a child process (not under callgrind) and writes a V8 heap snapshot on request, after a
 * full collection; this process sums the snapshot's objects by their self size. Snapshots are taken with
 * `streams` streams open and again with twice as many, every one acknowledged, so what the first streams
 * warm up (compiled code, pools, caches) is in both and the difference is what `streams` more of them hold.
 * The same for toolwire's listen bench server and the raw floor (bench/raw-listen-server.mjs).
 */
import { fork } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * `{ bytesPerStream, kinds }` for `script`: `kinds` maps each snapshot node type and name (e.g.
 * `closure onAbort`, `object Socket`) to its bytes per stream.
 */
export async function listenMemory(script, streams, { listenBody, headers, address }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-listen-memory-'))
  const child = fork(script, [], {
    execArgv: ['--expose-gc'],
    env: { ...process.env, STREAMS: String(streams * 2) },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
  const open = []
  try {
    const url = await new Promise((resolve, reject) => {
      let out = ''
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        out += chunk
        const match = /on (http:\/\/\S+)/.exec(out)
        if (match) resolve(match[1])
      })
      child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${out}`)))
    })
    const openMany = (count) =>
      Promise.all(
        Array.from({ length: count }, (_, index) => {
          const id = open.length + 1
          const body = listenBody(id)
          return new Promise((resolve, reject) => {
            const req = request(url, {
              agent,
              localAddress: address(index),
              method: 'POST',
              headers: headers(body),
            })
            open.push(req)
            req.on('error', reject)
            req.on('response', (res) => {
              if (res.statusCode !== 200) reject(new Error(`listen ${id}: HTTP ${res.statusCode}`))
              res.setEncoding('utf8')
              res.on('data', (chunk) => {
                if (chunk.includes('notifications/subscriptions/acknowledged')) resolve()
              })
            })
            req.end(body)
          })
        }),
      )
    const snapshot = async (name) => {
      const file = join(dir, `${name}.heapsnapshot`)
      await new Promise((resolve) => {
        child.once('message', resolve)
        child.send({ snapshot: file })
      })
      return heapObjects(readFileSync(file, 'utf8'))
    }
    await openMany(streams)
    const before = await snapshot('before')
    await openMany(streams)
    const after = await snapshot('after')
    const kinds = new Map(
      [...new Set([...before.kinds.keys(), ...after.kinds.keys()])].map((kind) => [
        kind,
        ((after.kinds.get(kind) ?? 0) - (before.kinds.get(kind) ?? 0)) / streams,
      ]),
    )
    return { bytesPerStream: (after.total - before.total) / streams, kinds }
  } finally {
    for (const req of open) req.destroy()
    agent.destroy()
    child.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
}

const CONTENT_NAMED = new Set([
  'string',
  'concatenated string',
  'sliced string',
  'number',
  'regexp',
  'bigint',
])

/** The total self size of a heap snapshot's objects, and the same by type and name. */
export function heapObjects(text) {
  const { snapshot, nodes, strings } = JSON.parse(text)
  const fields = snapshot.meta.node_fields
  const types = snapshot.meta.node_types[0]
  const stride = fields.length
  const typeAt = fields.indexOf('type')
  const nameAt = fields.indexOf('name')
  const sizeAt = fields.indexOf('self_size')
  const kinds = new Map()
  let total = 0
  for (let index = 0; index < nodes.length; index += stride) {
    const size = nodes[index + sizeAt]
    total += size
    const type = types[nodes[index + typeAt]]
    // Strings and numbers are counted by type alone: their names are their contents.
    const kind = CONTENT_NAMED.has(type) ? type : `${type} ${strings[nodes[index + nameAt]]}`
    kinds.set(kind, (kinds.get(kind) ?? 0) + size)
  }
  return { total, kinds }
}
