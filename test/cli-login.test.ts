/**
 * `toolwire login | call | logout` as real processes against oidc-provider and a bearerAuth server: the
 * browser step is played by fetching the printed URL, the redirect lands on the CLI's loopback listener,
 * and the tokens end up in a 0600 credentials file that later commands use.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  playBrowser,
  ROBOT_CLIENT,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from './helpers/oidc.js'
import { CLI } from './helpers/paths.js'
import { startProtectedNotes, type ProtectedNotes } from './helpers/protected-notes.js'

let as: TestAuthorizationServer
let mcp: ProtectedNotes
let configDir = ''

beforeAll(async () => {
  as = await startAuthorizationServer({
    resourceScopes: 'notes:read notes:write',
    clients: [ROBOT_CLIENT],
  })
  mcp = await startProtectedNotes(as.issuer)
  configDir = mkdtempSync(join(tmpdir(), 'toolwire-login-'))
})

afterAll(async () => {
  await mcp.close()
  await as.close()
  rmSync(configDir, { recursive: true, force: true })
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the CLI; `onStderr` sees its error output as it comes (the login URL is printed there). */
function cli(
  args: string[],
  env: Record<string, string> = {},
  onStderr?: (text: string) => void,
): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, TOOLWIRE_CONFIG_DIR: configDir, DISPLAY: '', WAYLAND_DISPLAY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
    onStderr?.(stderr)
  })
  const deadline = setTimeout(() => child.kill('SIGKILL'), 15_000)
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(deadline)
      resolve({ code, stdout, stderr })
    }),
  )
}

const credentialsFile = (): string => join(configDir, 'credentials.json')
const stored = (): { tokens: Record<string, { scope?: string }> } =>
  JSON.parse(readFileSync(credentialsFile(), 'utf8')) as { tokens: Record<string, { scope?: string }> }

describe('toolwire login / logout', () => {
  it('a command before login fails with a hint to log in', async () => {
    const run = await cli(['list', mcp.url])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('toolwire login')
  })

  it('logs in through the loopback redirect and stores the tokens with 0600', async () => {
    let browsing: Promise<URL> | undefined
    const run = await cli(['login', mcp.url, '--no-browser'], {}, (text) => {
      const match = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text)
      if (match && !browsing) {
        const authorizationUrl = new URL(match[1] as string)
        const redirectUri = authorizationUrl.searchParams.get('redirect_uri') as string
        expect(new URL(redirectUri).hostname).toBe('127.0.0.1')
        browsing = playBrowser(authorizationUrl, redirectUri, true)
      }
    })
    await browsing
    expect(run.stderr).toContain(`Logged in to ${mcp.url}`)
    expect(run.code).toBe(0)
    expect(statSync(credentialsFile()).mode & 0o777).toBe(0o600)
    expect(stored().tokens[mcp.url]?.scope).toContain('notes:read')
  })

  it('later commands use the stored tokens', async () => {
    const run = await cli(['call', mcp.url, 'notes_read', '--yes'])
    expect(run.stderr).not.toContain('login')
    expect(run.stdout).toContain('notes for alice')
    expect(run.code).toBe(0)
  })

  it('logout forgets the tokens', async () => {
    const run = await cli(['logout', mcp.url])
    expect(run.code).toBe(0)
    expect(stored().tokens[mcp.url]).toBeUndefined()
    expect((await cli(['list', mcp.url])).code).toBe(2)
  })

  it('ignores forged callbacks on the loopback listener and finishes with the real one', async () => {
    const forged: { status: number; page: string }[] = []
    let browsing: Promise<URL> | undefined
    const run = await cli(['login', mcp.url, '--no-browser'], {}, (text) => {
      const match = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(text)
      if (match && !browsing) {
        const authorizationUrl = new URL(match[1] as string)
        const redirectUri = authorizationUrl.searchParams.get('redirect_uri') as string
        browsing = (async () => {
          // Another local process or page gets there first: wrong state, no state, a forged error.
          for (const query of ['code=forged&state=forged', 'code=forged', 'error=access_denied&state=x']) {
            const response = await fetch(`${redirectUri}?${query}`)
            forged.push({ status: response.status, page: await response.text() })
          }
          return playBrowser(authorizationUrl, redirectUri, true)
        })()
      }
    })
    await browsing
    expect(forged.map(({ status }) => status)).toEqual([400, 400, 400])
    expect(forged[0]?.page).toContain('does not belong to the login in progress')
    expect(run.stderr).toContain(`Logged in to ${mcp.url}`)
    expect(run.code).toBe(0)
    expect(stored().tokens[mcp.url]?.scope).toContain('notes:read')
  })

  it('--client-credentials logs a machine in without a browser', async () => {
    const env = { TOOLWIRE_CLIENT_ID: 'robot', TOOLWIRE_CLIENT_SECRET: 'robot-secret-value' }
    const login = await cli(['login', mcp.url, '--client-credentials'], env)
    expect(login.code).toBe(0)
    const call = await cli(['call', mcp.url, 'notes_read', '--yes'], env)
    expect(call.stdout).toContain('notes for')
    expect(call.code).toBe(0)
  })
})
