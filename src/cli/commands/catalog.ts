/** `toolwire resources | read | prompts | prompt`: what a server offers besides tools. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Command } from 'commander'
import type { ContentBlock, PromptInfo } from '../../client/index.js'
import { renderResult } from '../client/render.js'
import { requireOperand, UsageError } from '../client/target.js'
import { common, withClient, type CommonFlags } from './client.js'

interface OutFlags extends CommonFlags {
  outDir?: string
}

const TARGET = 'server URL or configured server name (or -- and the command of a stdio server)'

/** Content blocks printed through the CLI's result renderer (text shown, binary data saved to files). */
function printBlocks(blocks: ContentBlock[], flags: OutFlags, stem: string): void {
  const dir = flags.outDir ?? mkdtempSync(join(tmpdir(), 'toolwire-'))
  for (const line of renderResult({ content: blocks }, dir, stem)) console.log(line)
}

/** `name=value` prompt arguments (prompt arguments are always strings). */
function promptArguments(pairs: readonly string[], prompt: PromptInfo | undefined): Record<string, string> {
  const args: Record<string, string> = {}
  for (const pair of pairs) {
    const equals = pair.indexOf('=')
    if (equals <= 0) throw new UsageError(`expected key=value, got ${JSON.stringify(pair)}`)
    args[pair.slice(0, equals)] = pair.slice(equals + 1)
  }
  const missing = (prompt?.arguments ?? []).filter((a) => a.required && !(a.name in args)).map((a) => a.name)
  if (missing.length > 0) throw new UsageError(`missing required prompt argument(s): ${missing.join(', ')}`)
  return args
}

export function registerCatalogCommands(program: Command): void {
  common(
    program
      .command('resources')
      .description("list a server's resources and resource templates")
      .argument('[target...]', TARGET),
  ).action(async (operands: string[], flags: CommonFlags) =>
    withClient(operands, flags, async (client) => {
      const discovered = await client.discover()
      if (!discovered.capabilities.resources) {
        if (flags.json) console.log(JSON.stringify({ resources: [], resourceTemplates: [] }, null, 2))
        else console.log('(the server offers no resources)')
        return 0
      }
      const [resources, resourceTemplates] = [
        await client.listResources(),
        await client.listResourceTemplates(),
      ]
      if (flags.json) {
        console.log(JSON.stringify({ resources, resourceTemplates }, null, 2))
        return 0
      }
      if (resources.length === 0 && resourceTemplates.length === 0) console.log('(no resources)')
      for (const resource of resources) {
        const mime = resource.mimeType ? ` (${resource.mimeType})` : ''
        console.log(`${resource.uri} — ${resource.title ?? resource.name}${mime}`)
        if (resource.description) console.log(`    ${resource.description}`)
      }
      for (const template of resourceTemplates) {
        console.log(`${template.uriTemplate} — ${template.title ?? template.name} [template]`)
        if (template.description) console.log(`    ${template.description}`)
      }
      return 0
    }),
  )

  common(
    program
      .command('read')
      .description('read a resource: toolwire read <target> <uri>  or  toolwire read <uri> -- <command>')
      .argument('[operands...]', `${TARGET}, then the resource URI`)
      .option('--out-dir <dir>', 'where to save binary contents (default: a new temporary folder)'),
  ).action(async (operands: string[], flags: OutFlags) =>
    withClient(
      operands,
      flags,
      async (client, target) => {
        const [uri, ...extra] = target.rest
        if (!uri) throw new UsageError('give the URI of the resource to read')
        if (extra.length > 0) throw new UsageError(`unexpected argument(s) after the URI: ${extra.join(' ')}`)
        const result = await client.readResource(uri)
        if (flags.json) console.log(JSON.stringify(result, null, 2))
        else
          printBlocks(
            result.contents.map((resource) => ({ type: 'resource', resource })),
            flags,
            'resource',
          )
        return 0
      },
      (target) =>
        requireOperand(target, 'the URI of the resource to read', 'toolwire read <uri> -- <command>'),
    ),
  )

  common(
    program
      .command('prompts')
      .description("list a server's prompts and their arguments")
      .argument('[target...]', TARGET),
  ).action(async (operands: string[], flags: CommonFlags) =>
    withClient(operands, flags, async (client) => {
      const discovered = await client.discover()
      const prompts = discovered.capabilities.prompts ? await client.listPrompts() : []
      if (flags.json) {
        console.log(JSON.stringify(prompts, null, 2))
        return 0
      }
      if (prompts.length === 0) console.log('(no prompts)')
      for (const prompt of prompts) {
        const title = prompt.title && prompt.title !== prompt.name ? ` — ${prompt.title}` : ''
        console.log(`${prompt.name}${title}`)
        if (prompt.description) console.log(`    ${prompt.description}`)
        const args = (prompt.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`)
        if (args.length > 0) console.log(`    args: ${args.join(', ')}`)
      }
      return 0
    }),
  )

  common(
    program
      .command('prompt')
      .description('get a prompt: toolwire prompt <target> <name> [key=value ...]')
      .argument('[operands...]', `${TARGET}, then the prompt name and key=value arguments`)
      .option('--out-dir <dir>', 'where to save binary contents (default: a new temporary folder)'),
  ).action(async (operands: string[], flags: OutFlags) =>
    withClient(
      operands,
      flags,
      async (client, target) => {
        const [name, ...pairs] = target.rest
        if (!name) throw new UsageError('give the name of the prompt')
        const prompts = await client.listPrompts()
        const prompt = prompts.find((candidate) => candidate.name === name)
        if (!prompt) {
          throw new UsageError(
            `${target.describe} has no prompt ${JSON.stringify(name)}; it has: ${prompts.map((p) => p.name).join(', ') || 'none'}`,
          )
        }
        const result = await client.getPrompt(name, promptArguments(pairs, prompt))
        if (flags.json) {
          console.log(JSON.stringify(result, null, 2))
          return 0
        }
        if (result.description) console.log(result.description)
        for (const [index, message] of result.messages.entries()) {
          console.log(`--- ${message.role}`)
          printBlocks([message.content], flags, `${name}-${index + 1}`)
        }
        return 0
      },
      (target) =>
        requireOperand(
          target,
          'the name of the prompt',
          'toolwire prompt <name> [key=value ...] -- <command>',
        ),
    ),
  )
}
