/**
 * The examples that end each command's `--help`: one place for all of them, so a command's help shows how it
 * is used next to what its options are, and a new command without examples is caught by its test.
 */
import type { Command } from 'commander'

const URL = 'http://127.0.0.1:3000/mcp'

export const COMMAND_EXAMPLES: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  serve: [
    ['toolwire serve ./server.js', `serve its default export on ${URL}`],
    ['toolwire serve ./server.js --http 0.0.0.0:8080', 'another address (mind the Host/Origin policy)'],
    ['toolwire serve ./server.js --stdio', 'for a client that starts the server itself'],
    ['toolwire serve ./server.js --otel', 'traces and metrics over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT …)'],
    ['toolwire serve ./server.js --otel console', 'spans and metrics printed on stderr'],
    [
      "toolwire serve --openapi ./api.yaml --header 'Authorization: Bearer …'",
      "an HTTP API's operations as tools",
    ],
  ],
  demo: [
    ['toolwire demo', `the demo on ${URL}`],
    ['PORT=3001 toolwire demo', 'another port'],
    ['toolwire demo --stdio', 'over stdin/stdout'],
  ],
  discover: [
    [`toolwire discover ${URL}`, 'versions, capabilities, identity'],
    ['toolwire discover -- node server.js', 'a stdio server'],
  ],
  list: [
    [`toolwire list ${URL}`, 'tools with arguments, enums, defaults, output'],
    ['toolwire list github', 'a server named in .mcp.json, .vscode/mcp.json or claude_desktop_config.json'],
    ['toolwire list --json -- node server.js', 'a stdio server, as JSON'],
  ],
  call: [
    [`toolwire call ${URL} arithmetic op=add a=2 b=3`, 'arguments typed by the input schema'],
    [`toolwire call ${URL} arithmetic --json-args '{"op":"add","a":2,"b":3}'`, 'arguments as JSON'],
    ['toolwire call echo text=hi -- node server.js', 'a stdio server'],
  ],
  search: [
    [`toolwire search ${URL} weather forecast`, 'the tools best matching the words, as list prints them'],
    [`toolwire search ${URL} create invoice --limit 3 --json`, 'the three best, as JSON definitions'],
    ['toolwire search send email -- node server.js', 'a stdio server'],
  ],
  inspect: [
    [`toolwire inspect ${URL}`, 'open the inspector page on a server'],
    ['toolwire inspect -- npx -y @modelcontextprotocol/server-everything', 'a stdio server'],
    ['toolwire inspect --no-open --port 6274', 'print the URL only; the page asks for a server'],
  ],
  dev: [
    ['toolwire dev ./server.ts', 'serve it, reload on every save, inspect it'],
    ['toolwire dev ./server.js --http 127.0.0.1:3000 --no-open', 'a fixed address, no browser'],
  ],
  resources: [[`toolwire resources ${URL}`, 'resources and templates']],
  read: [[`toolwire read ${URL} notes://all`, 'one resource']],
  prompts: [[`toolwire prompts ${URL}`, 'prompts and their arguments']],
  prompt: [[`toolwire prompt ${URL} summarize_notes tag=work`, 'one prompt, with arguments']],
  task: [
    [`toolwire task get ${URL} <taskId>`, "a task's status and result"],
    [`toolwire task cancel ${URL} <taskId>`, 'ask the server to cancel it'],
  ],
  get: [[`toolwire task get ${URL} <taskId>`, "a task's status and result"]],
  cancel: [[`toolwire task cancel ${URL} <taskId>`, 'ask the server to cancel it']],
  completion: [
    ['eval "$(toolwire completion bash)"', 'bash (zsh, fish alike)'],
    ['toolwire completion fish > ~/.config/fish/completions/toolwire.fish', 'fish, for good'],
  ],
  login: [
    ['toolwire login https://mcp.example.com/mcp', 'authorize in the browser'],
    ['toolwire login https://mcp.example.com/mcp --no-browser', 'print the URL to open elsewhere'],
  ],
  logout: [['toolwire logout https://mcp.example.com/mcp', 'forget its tokens']],
  bridge: [
    ['toolwire bridge --http 127.0.0.1:8080 -- node server.js', 'a stdio server as Streamable HTTP'],
    [
      'toolwire bridge https://mcp.example.com/mcp --stdio',
      'a remote server for a host that spawns processes',
    ],
    [`toolwire bridge ${URL} --http 127.0.0.1:8080`, 'an HTTP server re-served'],
    [
      'TOKEN=… toolwire bridge --http 0.0.0.0:8080 --bearer-token-env TOKEN -- node server.js',
      'callers must send that bearer token',
    ],
    [
      'toolwire bridge --http 127.0.0.1:8080 --otel -- node server.js',
      'traced: upstream calls are children of the downstream ones',
    ],
  ],
  skills: [
    [`toolwire skills ${URL}`, 'skills: name, description, files'],
    ['toolwire skills -- node server.js', 'a stdio server'],
  ],
  'skills get': [
    [`toolwire skills get ${URL} greeting`, 'print SKILL.md, verified against its digest'],
    [
      `toolwire skills get ${URL} greeting --out-dir ./skills`,
      'save every file, verified, under ./skills/greeting',
    ],
  ],
  card: [
    [
      'toolwire card https://mcp.example.com/mcp',
      "the server's card, from <url>/server-card, schema-checked",
    ],
    ['toolwire card https://mcp.example.com/mcp --json', 'the card as JSON'],
  ],
  openapi: [
    ['toolwire openapi ./api.yaml', 'the tools it makes: name, operation, hints, title'],
    ['toolwire openapi https://api.example.com/openapi.json --json', 'the tool definitions as JSON'],
  ],
  registry: [
    ['toolwire registry ./server.js', 'write server.json from the server and package.json'],
    ['toolwire registry ./server.js --check', 'in CI: exit 1, naming the drift, if server.json is stale'],
    [
      "toolwire registry ./server.js --remote https://mcp.example.com/mcp --secret-header 'Authorization: Bearer token'",
      'a hosted endpoint too, with the header clients send',
    ],
    ['toolwire registry --demo --transport stdio --transport streamable-http', "the demo's server.json"],
  ],
  gateway: [
    ['toolwire gateway .mcp.json --http 127.0.0.1:8080', 'every server of the file at /mcp, namespaced'],
    [
      'toolwire gateway .mcp.json --http 0.0.0.0:8080 --issuer https://auth.example.com --jwks-url https://auth.example.com/jwks --resource https://tools.example.com/mcp',
      'OAuth access tokens required',
    ],
    ['toolwire gateway .mcp.json --otel', 'traced, to the OTLP endpoint of OTEL_EXPORTER_OTLP_ENDPOINT'],
  ],
}

/** Formats examples as commander's help does its options: the command, then what it shows, aligned. */
export function examplesText(examples: readonly (readonly [string, string])[]): string {
  const width = Math.max(...examples.map(([command]) => command.length))
  const lines = examples.map(([command, what]) => `  ${command.padEnd(width)}  ${what}`)
  return `\nExamples:\n${lines.join('\n')}`
}

/** Ends the help of every command (and subcommand) that has examples with them. */
export function addExamples(command: Command): void {
  for (const sub of command.commands) {
    const examples = COMMAND_EXAMPLES[`${command.name()} ${sub.name()}`] ?? COMMAND_EXAMPLES[sub.name()]
    if (examples) sub.addHelpText('after', examplesText(examples))
    addExamples(sub)
  }
}
