/**
 * A throw-away redis-server for tests: on a free loopback port, no persistence, stopped by PID.
 * Without a redis-server binary the Redis tests are skipped locally, but never in CI (CI=true), where
 * .ci/run installs it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:net'

export const redisAvailable = spawnSync('redis-server', ['--version']).status === 0
export const requireRedis = process.env.CI === 'true'

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export interface RedisProcess {
  readonly url: string
  stop(): Promise<void>
}

export async function startRedis(): Promise<RedisProcess> {
  const port = await freePort()
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start within 10 s')), 10_000)
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)))
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      if (chunk.includes('Ready to accept connections')) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}
