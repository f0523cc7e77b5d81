#!/usr/bin/env node
/** The `toolwire` command line. Exit status: 0 success, 1 tool error, 2 usage, protocol or transport error. */
import { readFileSync } from 'node:fs'
import { Command } from 'commander'
import { registerBridge } from './commands/bridge.js'
import { registerGateway } from './commands/gateway.js'
import { registerInspect } from './commands/inspect.js'
import { registerCatalogCommands } from './commands/catalog.js'
import { describeFailure, registerClientCommands } from './commands/client.js'
import { registerCompletion } from './commands/completion.js'
import { registerLogin } from './commands/login.js'
import { registerOpenAPI } from './commands/openapi.js'
import { registerRegistry } from './commands/registry.js'
import { registerSearch } from './commands/search.js'
import { registerServe } from './commands/serve.js'
import { registerSkillCommands } from './commands/skills.js'
import { addExamples } from './examples.js'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string
}

const EXAMPLES = `
Examples:
  toolwire demo                                         serve the demo on http://127.0.0.1:3000/mcp
  toolwire list http://127.0.0.1:3000/mcp               tools with arguments, enums, defaults, output
  toolwire call http://127.0.0.1:3000/mcp arithmetic op=add a=2 b=3
  toolwire search http://127.0.0.1:3000/mcp create invoice   a server with tool search: find tools
  toolwire resources http://127.0.0.1:3000/mcp          resources and templates
  toolwire read http://127.0.0.1:3000/mcp notes://all
  toolwire prompt http://127.0.0.1:3000/mcp summarize_notes tag=work
  toolwire list github                                  a server named in .mcp.json, .vscode/mcp.json
                                                        or claude_desktop_config.json
  toolwire list --env API_KEY=… -- node server.js       a stdio server with an extra variable
  toolwire bridge --http 127.0.0.1:8080 -- node server.js   a stdio server as Streamable HTTP
  toolwire gateway .mcp.json --http 127.0.0.1:8080      every server of the file at /mcp, namespaced
  toolwire serve --openapi ./api.yaml --http 127.0.0.1:3000   an HTTP API's operations as tools
  toolwire inspect http://127.0.0.1:3000/mcp            explore and call it in a web page
  toolwire dev ./server.ts                              serve a module, reload on save, inspect it
  toolwire registry ./server.js                         write server.json for the MCP Registry
  eval "$(toolwire completion bash)"                    shell completion (bash, zsh, fish)
`

const program = new Command()
  .name('toolwire')
  .description('Serve and use MCP 2026-07-28 tools')
  .version(pkg.version)
  // An unknown command gets one line and commander's "Did you mean …?", not the whole help.
  .showSuggestionAfterError()
  // Commander's own errors (unknown command, missing argument …) are usage errors: exit status 2.
  // Set before the commands are added, so every subcommand inherits it.
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .addHelpText('after', EXAMPLES)

registerServe(program)
registerClientCommands(program)
registerSearch(program)
registerCatalogCommands(program)
registerSkillCommands(program)
registerCompletion(program)
registerLogin(program)
registerBridge(program)
registerGateway(program)
registerOpenAPI(program)
registerRegistry(program)
registerInspect(program)
addExamples(program)

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(`toolwire: ${describeFailure(error)}`)
  process.exit(2)
})
