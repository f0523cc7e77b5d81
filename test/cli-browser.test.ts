/**
 * `toolwire login` opens the browser with the authorization URL as one intact argument on macOS, Linux and
 * Windows, whatever it contains (`&`, `"`, `^`, `%`, `'`, spaces). The real `open` package runs in a child
 * process told it is on each platform, and spawns a recording stand-in for the platform's opener: macOS
 * `open` (found on PATH), the bundled `xdg-open` handing over to `$BROWSER`, and Windows PowerShell (found
 * under SYSTEMROOT), whose encoded command is decoded and read as PowerShell reads a single-quoted string.
 */
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from './helpers/paths.js'
import { until } from './helpers/wait.js'

const URL_WITH_EVERYTHING =
  'https://auth.example/authorize?a=1&b="x"&c=^&d=%41%&e=two words&f=\'q\'&g=’&h=|<>&exit'

const dir = mkdtempSync(join(tmpdir(), 'toolwire-browser-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A shell script at `path` that writes its arguments, NUL-separated, to `record` (atomically). */
function recorder(path: string, record: string): void {
  writeFileSync(
    path,
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done > '${record}.tmp' && mv '${record}.tmp' '${record}'\n`,
  )
  chmodSync(path, 0o755)
}

function openAs(platform: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test/fixtures/open-browser-as.ts'), platform, URL_WITH_EVERYTHING],
      { cwd: ROOT, env: { PATH: process.env.PATH, HOME: dir, ...env }, timeout: 30_000 },
      (error, stdout) => (error ? reject(error) : resolve(stdout.trim())),
    )
  })
}

async function recorded(record: string): Promise<string[]> {
  await until(() => existsSync(record), 20_000, `${record} written`)
  return readFileSync(record, 'utf8').split('\0').slice(0, -1)
}

describe('openBrowser', () => {
  it('macOS: `open` gets the URL as one argument', async () => {
    const bin = join(dir, 'mac-bin')
    mkdirSync(bin)
    const record = join(dir, 'mac.args')
    recorder(join(bin, 'open'), record)
    expect(await openAs('darwin', { PATH: `${bin}:${process.env.PATH ?? ''}` })).toBe('true')
    expect(await recorded(record)).toEqual([URL_WITH_EVERYTHING])
  })

  it('Linux: xdg-open hands the URL to the browser as one argument', async () => {
    const record = join(dir, 'linux.args')
    const browser = join(dir, 'browser')
    recorder(browser, record)
    // No desktop files to look in (this machine may have a real browser registered): $BROWSER decides.
    const empty = join(dir, 'no-desktop-files')
    mkdirSync(empty)
    const env = { DISPLAY: ':0', BROWSER: browser, XDG_DATA_HOME: empty, XDG_DATA_DIRS: empty }
    expect(await openAs('linux', env)).toBe('true')
    expect(await recorded(record)).toEqual([URL_WITH_EVERYTHING])
  })

  it('Linux without a display: does not try', async () => {
    expect(await openAs('linux', {})).toBe('false')
  })

  it('Windows: PowerShell Start gets the URL as one single-quoted string, no cmd.exe', async () => {
    const systemRoot = join(dir, 'windows')
    const record = join(dir, 'windows.args')
    // powershell.exe's path is built with backslashes, which are ordinary file-name characters here.
    recorder(`${systemRoot}\\System32\\WindowsPowerShell\\v1.0\\powershell.exe`, record)
    expect(await openAs('win32', { SYSTEMROOT: systemRoot })).toBe('true')
    const args = await recorded(record)
    expect(args.slice(0, -1)).toEqual([
      '-NoProfile',
      '-NonInteractive',
      '-ExecutionPolicy',
      'Bypass',
      '-EncodedCommand',
    ])
    const command = Buffer.from(args.at(-1) ?? '', 'base64').toString('utf16le')
    // In a single-quoted PowerShell string only quote characters are special, and they come doubled.
    const quoted = /^\$ProgressPreference = 'SilentlyContinue'; Start '((?:[^'‘’‚‛]|['‘’‚‛]{2})*)'$/.exec(
      command,
    )
    expect(quoted, command).not.toBeNull()
    expect(quoted?.[1]?.replace(/(['‘’‚‛])\1/g, '$1')).toBe(URL_WITH_EVERYTHING)
  })
})
