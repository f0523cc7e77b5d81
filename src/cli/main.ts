#!/usr/bin/env node
/** The `toolwire` command line. */
import { readFileSync } from 'node:fs'
import { Command } from 'commander'
import { describeFailure, registerClientCommands } from './commands/client.js'
import { registerLogin } from './commands/login.js'
import { registerServe } from './commands/serve.js'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string
}

const program = new Command()
  .name('toolwire')
  .description('Serve and use MCP 2026-07-28 tools')
  .version(pkg.version)
  .showHelpAfterError()

registerServe(program)
registerClientCommands(program)
registerLogin(program)

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(`toolwire: ${describeFailure(error)}`)
  process.exit(2)
})
