/** The CLI trusts a read-only hint only when it is exactly `true`, whatever a server sends. */
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineServer } from '../src/index.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { CLI, ROOT } from './helpers/paths.js'

/** A server that publishes hints of the wrong type, which toolwire's own definitions would refuse. */
const sloppy = defineServer({
  name: 'sloppy',
  version: '1',
  features: [
    {
      methods: {
        'tools/list': {
          handler: () => ({
            resultType: 'complete',
            ttlMs: 0,
            cacheScope: 'public',
            tools: [
              { name: 'truthy', inputSchema: { type: 'object' }, annotations: { readOnlyHint: 'yes' } },
              { name: 'really', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
            ],
          }),
        },
      },
    },
  ],
})

let running: RunningServer
beforeAll(async () => {
  running = await serveNode(sloppy, { host: '127.0.0.1', port: 0 })
})
afterAll(() => running.close())

const list = (): Promise<string> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'list', running.url], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.once('close', () => {
      clearTimeout(timer)
      resolve(out)
    })
  })

describe('toolwire list', () => {
  it('marks a tool read-only only for readOnlyHint === true', async () => {
    const lines = (await list()).split('\n')
    expect(lines).toContain('really [read-only, per the server]')
    expect(lines).toContain('truthy')
  })
})
