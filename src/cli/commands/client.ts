/** `toolwire discover | list | call <target>`: try any MCP server from the terminal. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as prompts from '@clack/prompts'
import type { Command } from 'commander'
import {
  InvalidResponseError,
  McpError,
  type Client,
  type ClientOptions,
  type Tool,
  UrlElicitationRequiredError,
} from '../../client/index.js'
import { ErrorCode } from '../../wire/errors.js'
import { taskSupportOf } from '../../client/legacy-tasks.js'
import { PINNABLE_VERSIONS } from '../../client/era.js'
import { auditLogFile } from '../client/audit-log.js'
import { buildArguments } from '../client/coerce.js'
import { undeclaredArguments } from '../client/undeclared.js'
import { offerRequiredUrls, terminalElicitation } from '../client/elicit.js'
import { progressReporter, renderResult } from '../client/render.js'
import { samplingCommand } from '../client/sampling.js'
import { parseTarget, requireOperand, type Target, UsageError } from '../client/target.js'
import { forTerminal, jsonForTerminal } from '../terminal-text.js'
import { describeSchema } from '../client/schema-summary.js'
import { loginHint } from './login.js'
import { registerTaskCommands, taskStatusLine } from './task.js'

export interface CommonFlags {
  header?: string[]
  env?: string[]
  root?: string[]
  samplingCommand?: string
  json?: boolean
  timeout?: string
  auditLog?: string
  protocolVersion?: string
}

interface CallFlags extends CommonFlags {
  jsonArgs?: string
  yes?: boolean
  trustAnnotations?: boolean
  outDir?: string
}

export const say = (line: string): void => void process.stderr.write(`${line}\n`)
const interactive = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY)

function clientOptions(target: Target, flags: CommonFlags, legacy: () => boolean): ClientOptions {
  const timeoutMs = flags.timeout === undefined ? undefined : Number(flags.timeout)
  if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new UsageError('--timeout expects milliseconds > 0')
  const pinned = flags.protocolVersion
  if (pinned !== undefined && !PINNABLE_VERSIONS.includes(pinned)) {
    throw new UsageError(
      `--protocol-version ${JSON.stringify(pinned)} is not a revision this client speaks; use one of ${PINNABLE_VERSIONS.join(', ')}`,
    )
  }
  return {
    clientInfo: { name: 'toolwire-cli', version: '0.1.0' },
    warn: (message) => say(`warning: ${forTerminal(message, { multiline: true })}`),
    handlers: {
      elicitation: terminalElicitation(target.describe, interactive(), say, legacy),
      // Roots only when the user names them: a server told about roots may replace the folders it was
      // started with by them (client/roots §User Interaction Model: roots are the user's choice), as
      // server-filesystem does with the directory on its command line.
      ...(flags.root?.length && {
        roots: flags.root.map((folder) => ({ uri: pathToFileURL(resolve(folder)).href })),
      }),
      ...(flags.samplingCommand !== undefined && { sampling: samplingCommand(flags.samplingCommand) }),
    },
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(flags.auditLog !== undefined && { onToolCall: auditLogFile(flags.auditLog) }),
    ...(pinned !== undefined && { protocolVersion: pinned }),
  }
}

/** Runs an action with a connected client, always closing it (a stdio server process ends with it). */
export async function withClient(
  operands: string[],
  flags: CommonFlags,
  action: (client: Client, target: Target) => Promise<number>,
  check?: (target: Target) => void,
): Promise<void> {
  const target = parseTarget(operands, flags.header ?? [], flags.env ?? [])
  check?.(target) // before the server is started or connected to
  // The era is known once connected (the URL prompt's wording depends on it); asked only after open returns.
  const client: Client = target.open(clientOptions(target, flags, () => client.legacy))
  const signals = closeOnSignal(client)
  let code: number
  try {
    code = await action(client, target)
  } catch (error) {
    // A signal closed the client under the action: the call failed because of it, and the exit status is
    // the signal's (128 + n), not that of an error.
    const signalled = signals.status()
    if (signalled !== undefined) {
      await client.close()
      process.exit(signalled)
    }
    if (error instanceof UrlElicitationRequiredError) {
      await offerRequiredUrls(error.elicitations, interactive())
    }
    throw error
  } finally {
    await client.close()
    signals.unhook()
  }
  process.exitCode = code
}

const SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const

/** The tool call in progress, which the first Ctrl-C cancels (the server is told) instead of exiting. */
const runningCall: { cancel: (() => void) | undefined } = { cancel: undefined }

/**
 * Ctrl-C, SIGTERM or a closed terminal closes the client before exiting, so a stdio server (and whatever
 * it started) ends with the CLI; a second signal exits at once (the client library's exit hook still kills
 * the server's process group). A SIGINT while `call` runs cancels the call first.
 */
function closeOnSignal(client: Client): { unhook: () => void; status: () => number | undefined } {
  let closing: number | undefined
  const handlers = Object.entries(SIGNALS).map(([signal, status]) => {
    const handler = (): void => {
      const cancel = signal === 'SIGINT' && closing === undefined ? runningCall.cancel : undefined
      if (cancel) {
        runningCall.cancel = undefined
        return cancel()
      }
      if (closing !== undefined) process.exit(status)
      closing = status
      void client.close().finally(() => process.exit(status))
    }
    process.on(signal, handler)
    return [signal, handler] as const
  })
  return {
    unhook: () => {
      for (const [signal, handler] of handlers) process.off(signal, handler)
    },
    status: () => closing,
  }
}

const display = (tool: Tool): string => tool.title ?? tool.annotations?.title ?? tool.name

/** Tools as `list` and `search` print them: name, title, marks, description, arguments and output. */
export function printTools(tools: Tool[]): void {
  if (tools.length === 0) return console.log('(no tools)')
  for (const tool of tools) {
    const readOnly = tool.annotations?.readOnlyHint === true ? ' [read-only, per the server]' : ''
    // 2025-11-25 basic/utilities/tasks §Tool-Level Negotiation: such a tool answers only as a task.
    const marks = taskSupportOf(tool) === 'required' ? `${readOnly} [needs a task]` : readOnly
    const title = display(tool) !== tool.name ? ` — ${forTerminal(display(tool))}` : ''
    console.log(`${forTerminal(tool.name)}${title}${marks}`)
    if (tool.description) {
      console.log(`    ${forTerminal(tool.description, { multiline: true }).split('\n').join('\n    ')}`)
    }
    for (const line of describeSchema(tool.inputSchema, 'args')) console.log(`    ${forTerminal(line)}`)
    if (tool.outputSchema) {
      for (const line of describeSchema(tool.outputSchema, 'returns')) console.log(`    ${forTerminal(line)}`)
    }
  }
}

/** Asks before calling unless --yes; annotations from the server are shown but never trusted by default. */
async function confirmCall(tool: Tool, flags: CallFlags): Promise<boolean> {
  if (flags.yes) return true
  const readOnly = tool.annotations?.readOnlyHint === true
  if (readOnly && flags.trustAnnotations) return true
  say(
    readOnly
      ? 'The server marks this tool read-only, but annotations from an untrusted server cannot be relied on.'
      : 'The server does not mark this tool read-only: it may change things.',
  )
  if (!interactive()) {
    say('No terminal to ask for confirmation in; the tool was not called. Pass --yes to call it anyway.')
    return false
  }
  const answer = await prompts.confirm({
    message: `Call ${forTerminal(tool.name)}?`,
    initialValue: false,
    output: process.stderr,
  })
  return answer === true
}

/**
 * Servers may list a tool only to clients that declared what it needs (server-everything lists its sampling
 * tool only to clients that can sample): an unlisted name may be such a tool.
 */
function hiddenToolHint(flags: CommonFlags): string {
  const missing = [
    ...(flags.samplingCommand === undefined ? ['--sampling-command "<command>" (sampling)'] : []),
    ...(flags.root?.length ? [] : ['--root <dir> (roots)']),
  ]
  if (missing.length === 0) return ''
  return `. A server may hide tools from a client that lacks a capability they need: ${missing.join(' or ')} might reveal it`
}

async function call(client: Client, target: Target, flags: CallFlags): Promise<number> {
  const [name, ...pairs] = target.rest
  if (!name) throw new UsageError('give the name of the tool to call')
  const { tools } = await client.listTools()
  let tool = tools.find((candidate) => candidate.name === name)
  // A server with tool search lists only a few tools: the others are found by searching for the name.
  if (!tool && tools.some((candidate) => candidate.name === 'search_tools')) {
    const found = await client.searchTools(name, { limit: 50 })
    tool = found.find((candidate) => candidate.name === name)
  }
  if (!tool) {
    throw new UsageError(
      `${target.describe} has no tool ${jsonForTerminal(name)}; it has: ${tools.map((t) => forTerminal(t.name)).join(', ') || 'none'}${hiddenToolHint(flags)}`,
    )
  }
  const args = buildArguments(pairs, flags.jsonArgs, tool.inputSchema)
  // Sent anyway: the tool may take names it does not declare; a schema that refuses them makes the server say so.
  for (const warning of undeclaredArguments(name, args, tool.inputSchema))
    say(`warning: ${forTerminal(warning)}`)
  say(`Calling ${forTerminal(name)} on ${target.describe} with arguments:\n${jsonForTerminal(args)}`)
  if (!(await confirmCall(tool, flags))) {
    say('Not called.')
    return 2
  }
  const controller = new AbortController()
  runningCall.cancel = () => controller.abort('interrupted')
  const progress = progressReporter(interactive())
  try {
    const result = await client.callTool(name, args, {
      signal: controller.signal,
      // --timeout bounds the whole call, task polling and input rounds included, not only each request.
      ...(flags.timeout !== undefined && { maxTotalTimeoutMs: Number(flags.timeout) }),
      onProgress: progress.update,
      // A long-running tool answers with a task: its status changes are shown like progress.
      onTaskStatus: (task) => say(taskStatusLine(task)),
    })
    progress.stop()
    if (flags.json) {
      console.log(jsonForTerminal(result))
    } else {
      const dir = flags.outDir ?? mkdtempSync(join(tmpdir(), 'toolwire-'))
      for (const line of renderResult(result, dir, name)) console.log(line)
    }
    return result.isError === true ? 1 : 0
  } finally {
    progress.stop()
    runningCall.cancel = undefined
  }
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value]

/**
 * The options every client command shares. Repeatable options take one value per flag: a variadic one would
 * swallow the target that follows it (`-H 'Authorization: …' https://…`).
 */
export function common(command: Command): Command {
  return command
    .option(
      '-H, --header <header>',
      'HTTP header to send, e.g. "Authorization: Bearer …" (repeatable)',
      collect,
    )
    .option('-e, --env <KEY=VALUE>', 'environment variable for a stdio server (repeatable)', collect)
    .option('--root <dir>', 'a root the server may look at (repeatable; default: none declared)', collect)
    .option('--sampling-command <command>', "answer the server's sampling requests with this shell command")
    .option('--json', 'print the raw result as JSON')
    .option(
      '--timeout <ms>',
      'give up after this many milliseconds: on each request, and on the whole of a call (default 60000 per request)',
    )
    .option(
      '--protocol-version <rev>',
      `speak this MCP revision instead of discovering the server's era (${PINNABLE_VERSIONS.join(', ')})`,
    )
}

const TARGET_HELP = 'server URL, configured server name, or -- followed by the command of a stdio server'

export function registerClientCommands(program: Command): void {
  common(
    program
      .command('discover')
      .description("show a server's protocol versions, capabilities and identity")
      .argument('[target...]', TARGET_HELP),
  ).action(async (operands: string[], flags: CommonFlags) =>
    withClient(operands, flags, async (client) => {
      const result = await client.discover()
      if (flags.json) {
        console.log(jsonForTerminal(result))
        return 0
      }
      const info = await client.serverInfo()
      if (info) console.log(`Server:       ${forTerminal(`${info.title ?? info.name} ${info.version}`)}`)
      console.log(`Versions:     ${forTerminal(result.supportedVersions.join(', '))}`)
      console.log(`Capabilities: ${forTerminal(Object.keys(result.capabilities).join(', ')) || 'none'}`)
      if (result.instructions) {
        console.log(`Instructions: ${forTerminal(result.instructions, { multiline: true })}`)
      }
      return 0
    }),
  )

  common(
    program
      .command('list')
      .description("list a server's tools: arguments with types, enums and defaults, and output schemas")
      .argument('[target...]', TARGET_HELP),
  ).action(async (operands: string[], flags: CommonFlags) =>
    withClient(operands, flags, async (client) => {
      const { tools } = await client.listTools()
      if (flags.json) console.log(jsonForTerminal(tools))
      else printTools(tools)
      return 0
    }),
  )

  common(
    program
      .command('call')
      .description(
        'call a tool: toolwire call <url> <tool> [key=value ...]  or  toolwire call <tool> [key=value ...] -- <command>',
      )
      .argument('[operands...]', 'URL, tool name and key=value arguments (values typed by the input schema)')
      .option('--json-args <json>', 'arguments as a JSON object (key=value pairs override it)')
      .option('-y, --yes', 'call without asking for confirmation')
      .option('--trust-annotations', "don't ask for tools the server marks read-only")
      .option('--out-dir <dir>', 'where to save images and audio (default: a new temporary folder)')
      .option('--audit-log <file>', 'append a JSON line per tool call (tool, arguments, outcome, timing)'),
  ).action(async (operands: string[], flags: CallFlags) =>
    withClient(
      operands,
      flags,
      (client, target) => call(client, target, flags),
      (target) =>
        requireOperand(
          target,
          'the name of the tool to call',
          'toolwire call <tool> [key=value ...] -- <command>',
        ),
    ),
  )

  registerTaskCommands(program, common)
}

/** Exit status 2 for protocol, transport and usage errors, with the server's message made safe to print. */
export function describeFailure(error: unknown): string {
  const text = (message: string): string => forTerminal(message, { multiline: true })
  const hint = loginHint(error)
  if (hint) return `${text((error as Error).message)}: ${hint}`
  if (
    error instanceof McpError &&
    error.code === ErrorCode.MissingRequiredClientCapability &&
    JSON.stringify(error.data).includes('sampling')
  ) {
    return `${text(error.message)} (error ${error.code}): the server wants to sample a model, which the CLI declines; pass --sampling-command "<command>" to answer sampling requests`
  }
  if (
    error instanceof McpError &&
    error.code === ErrorCode.MissingRequiredClientCapability &&
    JSON.stringify(error.data).includes('roots')
  ) {
    return `${text(error.message)} (error ${error.code}): the CLI declares no roots unless asked; pass --root <dir> (repeatable) to offer folders`
  }
  if (error instanceof UrlElicitationRequiredError) {
    const urls = error.elicitations.map((required) => `\n  ${forTerminal(required.url)}`).join('')
    return (
      `${text(error.message)} (error ${error.code})` +
      (urls ? `: visit${urls}\nthen run the command again` : ': the server named no URL to visit')
    )
  }
  if (error instanceof McpError) return `${text(error.message)} (error ${error.code})`
  if (error instanceof InvalidResponseError) return `invalid response: ${text(error.message)}`
  return text(error instanceof Error ? error.message : String(error))
}
