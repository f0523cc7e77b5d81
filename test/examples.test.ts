/**
 * Every file in examples/ runs as its own process, as a reader would run it (`node --import tsx`), against
 * the built package (examples import `toolwire`, which resolves to dist/ by the package's self-reference).
 * An example checks its own results with node:assert and exits by itself: exit code 0 and its `<name>: ok`
 * line are the pass. examples/server.ts is the README's quick start: it runs under `toolwire serve`, and
 * `toolwire call` calls it.
 */
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ROOT } from './helpers/paths.js'
import { redisAvailable, requireRedis, startRedis, type RedisProcess } from './helpers/redis.js'

interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to its end; kills it (and fails) if it does not exit within the deadline. */
function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${args.join(' ')} did not exit within 60 s; stdout: ${stdout}; stderr: ${stderr}`))
    }, 60_000)
    child.once('error', reject)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

const SELF_CHECKING = readdirSync(join(ROOT, 'examples'))
  .filter((file) => file.endsWith('.ts') && file !== 'server.ts' && file !== 'worker.ts')
  .sort()

describe('examples/', { timeout: 90_000 }, () => {
  let redis: RedisProcess | undefined
  beforeAll(async () => {
    if (redisAvailable) redis = await startRedis()
  })
  afterAll(async () => {
    await redis?.stop()
  })

  it('has the examples the documentation promises', () => {
    for (const name of ['client', 'json-schema', 'auth', 'tasks', 'express', 'hono', 'redis'])
      expect(SELF_CHECKING).toContain(`${name}.ts`)
  })

  for (const example of SELF_CHECKING) {
    const needsRedis = example === 'redis.ts'
    it.skipIf(needsRedis && !redisAvailable && !requireRedis)(
      `${example} runs and checks itself`,
      async () => {
        const env: NodeJS.ProcessEnv = redis ? { REDIS_URL: redis.url } : {}
        const { code, stdout, stderr } = await run(
          process.execPath,
          ['--import', 'tsx', join('examples', example)],
          env,
        )
        expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' })
        expect(stdout).toContain(`${example.replace(/\.ts$/, '')}: ok`)
      },
    )
  }

  it('server.ts is a module `toolwire serve` runs, and `toolwire call` calls it', async () => {
    const server = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'serve', join('examples', 'server.ts'), '--http', '127.0.0.1:0'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()))
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = ''
        let err = ''
        const timer = setTimeout(() => reject(new Error(`no URL within 30 s; stderr: ${err}`)), 30_000)
        server.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
        server.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString()
          const match = /Serving calc on (http:\S+)/.exec(out)
          if (match?.[1]) {
            clearTimeout(timer)
            resolve(match[1])
          }
        })
        server.once('exit', (code) => reject(new Error(`toolwire serve exited with ${code}: ${err}`)))
      })
      const call = await run(process.execPath, [CLI, 'call', url, 'add', 'a=2', 'b=3', '--yes', '--json'])
      expect(call.code).toBe(0)
      expect(JSON.parse(call.stdout)).toMatchObject({ structuredContent: { sum: 5 } })
    } finally {
      server.kill('SIGTERM')
      await exited
    }
  })
})
