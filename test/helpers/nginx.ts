/**
 * A throw-away nginx load balancer for tests: round robin over the given upstreams, on a free loopback
 * port, one process (no privilege drop, files in a temporary folder), stopped by PID. Without an nginx
 * binary the tests that need it are skipped locally, but never in CI (CI=true), where .ci/run installs it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './redis.js'

export const nginxAvailable = spawnSync('nginx', ['-v']).status === 0
export const requireNginx = process.env.CI === 'true'

export interface NginxProcess {
  /** The balanced MCP endpoint. */
  readonly url: string
  stop(): Promise<void>
}

/** `upstreams` are `host:port` pairs; requests keep their Host header, so DNS-rebinding checks still pass. */
export async function startNginx(upstreams: readonly string[]): Promise<NginxProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-nginx-'))
  const port = await freePort()
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `${kind}_temp_path ${join(dir, kind)};`)
    .join('\n    ')
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
    ${temp}
  upstream members {
    ${upstreams.map((upstream) => `server ${upstream} max_fails=0;`).join('\n    ')}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://members;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 60s;
      proxy_next_upstream error timeout;
    }
  }
}
`,
  )
  const child: ChildProcess = spawn('nginx', ['-e', 'stderr', '-p', dir, '-c', join(dir, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const url = `http://127.0.0.1:${port}/mcp`
  // Ready when it accepts a connection; any HTTP answer will do.
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr}`)
    const up = await fetch(url, { method: 'GET' }).then(
      () => true,
      () => false,
    )
    if (up) break
    if (Date.now() > deadline) throw new Error(`nginx did not start within 10 s: ${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        const done = (): void => {
          rmSync(dir, { recursive: true, force: true })
          resolve()
        }
        if (child.exitCode !== null) return done()
        child.once('exit', done)
        child.kill('SIGTERM')
      }),
  }
}
