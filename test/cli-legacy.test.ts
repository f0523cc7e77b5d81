/**
 * The CLI, unchanged, against 2025-era servers: it lists @modelcontextprotocol/server-everything over stdio
 * and calls a tool of an SDK v1 server with sessions over HTTP.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSdkV1Http, type RunningSdkV1Http } from './fixtures/sdk-v1-server.mjs'
import { EVERYTHING_SERVER as EVERYTHING, CLI, ROOT } from './helpers/paths.js'

const run = promisify(execFile)

function toolwire(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [CLI, ...args], { timeout: 60_000, cwd: ROOT })
}

describe('toolwire CLI against 2025-era servers', () => {
  let server: RunningSdkV1Http
  beforeAll(async () => {
    server = await startSdkV1Http()
  })
  afterAll(() => server.close())

  it('lists server-everything over stdio', async () => {
    const { stdout } = await toolwire('list', '--', process.execPath, EVERYTHING)
    expect(stdout).toContain('get-sum')
    expect(stdout).toContain('args: a: number, b: number')
  })

  it('calls a tool of an SDK v1 server with sessions, and ends the session', async () => {
    const { stdout } = await toolwire('call', server.url, 'add', 'a=2', 'b=3', '--yes', '--json')
    expect(JSON.parse(stdout)).toMatchObject({ structuredContent: { sum: 5 } })
    expect(server.sessionsDeleted).toHaveLength(1)
  })

  it('shows what initialize told as discover', async () => {
    const { stdout } = await toolwire('discover', server.url)
    expect(stdout).toMatch(/Server: +sdk-v1 1\.32\.2/)
    expect(stdout).toMatch(/Versions: +2025-11-25/)
  })
})
