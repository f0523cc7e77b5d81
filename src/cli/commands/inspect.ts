/**
 * `toolwire inspect [target]` and `toolwire dev <module>`: a web page to explore and call a server, and a
 * reload loop for a server module with that page beside it. The page's code is loaded only by these actions,
 * so other commands start as fast as before.
 */
import type { Command } from 'commander'
import type { InspectFlags } from '../inspector/run.js'
import type { DevFlags } from '../inspector/dev.js'

const collect = (value: string, previous: string[] = []): string[] => [...previous, value]

export function registerInspect(program: Command): void {
  program
    .command('inspect')
    .description(
      'explore and call a server in a web page: tools, forms, results, resources, prompts, messages',
    )
    .argument('[target...]', 'server URL, configured server name, or -- followed by a stdio server command')
    .option(
      '-H, --header <header>',
      'HTTP header to send, e.g. "Authorization: Bearer …" (repeatable)',
      collect,
    )
    .option('-e, --env <KEY=VALUE>', 'environment variable for a stdio server (repeatable)', collect)
    .option('--root <dir>', 'a root the server may look at (repeatable; the page can change them)', collect)
    .option('--timeout <ms>', 'per-request timeout in milliseconds (default 60000)')
    .option('--protocol-version <rev>', "speak this MCP revision instead of discovering the server's era")
    .option('--port <port>', 'port of the page on 127.0.0.1 (default: a free one)')
    .option('--no-open', 'print the URL without opening a browser')
    .action(async (operands: string[], flags: InspectFlags) => {
      const { runInspect } = await import('../inspector/run.js')
      await runInspect(operands, flags)
    })

  program
    .command('dev')
    .description('serve a server module, reload it on every change, and inspect it in a web page')
    .argument('<module>', 'path to the module (TypeScript or JavaScript)')
    .option('--http <host:port>', 'where the server listens (default 127.0.0.1 on a free port)')
    .option('--port <port>', 'port of the inspector page on 127.0.0.1 (default: a free one)')
    .option('--no-open', 'print the URL without opening a browser')
    .action(async (modulePath: string, flags: DevFlags) => {
      const { runDev } = await import('../inspector/dev.js')
      await runDev(modulePath, flags)
    })
}
