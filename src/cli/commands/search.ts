/**
 * `toolwire search <target> <query>`: a server with tool search (`defineServer({ toolSearch })`, or any server
 * listing `search_tools`) lists only a few tools; this finds the others by what they do, printed as `list`
 * prints tools (names and texts from the server escaped for the terminal).
 */
import type { Command } from 'commander'
import { UsageError, requireOperand } from '../client/target.js'
import { jsonForTerminal } from '../terminal-text.js'
import { type CommonFlags, common, printTools, withClient } from './client.js'

interface SearchFlags extends CommonFlags {
  limit?: string
}

/** `--limit`: a positive integer, or usage error before anything is started or sent. */
function limitOf(flag: string | undefined): number | undefined {
  if (flag === undefined) return undefined
  const limit = Number(flag)
  if (!/^\d+$/.test(flag) || !Number.isSafeInteger(limit) || limit < 1)
    throw new UsageError(`--limit expects a whole number >= 1, got ${jsonForTerminal(flag)}`)
  return limit
}

export function registerSearch(program: Command): void {
  common(
    program
      .command('search')
      .description(
        "find a server's tools by what they do, with its search_tools: toolwire search <url> <query ...>  or  toolwire search <query ...> -- <command>",
      )
      .argument('[operands...]', 'URL and the words to search for')
      .option('--limit <n>', 'how many tools to return (default 10; toolwire servers allow up to 50)'),
  ).action(async (operands: string[], flags: SearchFlags) => {
    const limit = limitOf(flags.limit)
    return withClient(
      operands,
      flags,
      async (client, target) => {
        const tools = await client.searchTools(target.rest.join(' '), {
          ...(limit !== undefined && { limit }),
        })
        if (flags.json) console.log(jsonForTerminal(tools))
        else printTools(tools)
        return 0
      },
      (target) =>
        requireOperand(target, 'the words to search for', 'toolwire search <query ...> -- <command>'),
    )
  })
}
