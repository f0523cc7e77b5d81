/**
 * `toolwire skills <target>`, `toolwire skills get <target> <name> [--out-dir DIR]` (the Skills extension) and
 * `toolwire card <url>` (the Server Card). Every file is verified against its entry's digest before it is
 * printed or saved; a mismatch fails the command.
 */
import type { Command } from 'commander'
import type { Client, SkillEntry } from '../../client/index.js'
import { forTerminal, jsonForTerminal } from '../terminal-text.js'
import { saveUnder } from '../client/render.js'
import { requireOperand, UsageError } from '../client/target.js'
import { common, withClient, type CommonFlags } from './client.js'

interface OutFlags extends CommonFlags {
  outDir?: string
}

const TARGET = 'server URL or configured server name (or -- and the command of a stdio server)'

/** The skill a name or URI designates; names are labels, so two skills may share one (extensions/skills §Names). */
async function findSkill(client: Client, designation: string): Promise<SkillEntry> {
  const { getSkill, listSkills } = await import('../../client/skills.js')
  if (designation.includes('://')) return getSkill(client, designation)
  const skills = await listSkills(client)
  const matching = skills.filter((skill) => skill.frontmatter.name === designation)
  if (matching.length === 1) return matching[0] as SkillEntry
  if (matching.length > 1)
    throw new UsageError(
      `${matching.length} skills are named ${JSON.stringify(designation)}; give one URI: ${matching.map((s) => s.uri).join(', ')}`,
    )
  const names = skills.map((skill) => skill.frontmatter.name)
  throw new UsageError(
    `no skill named ${JSON.stringify(designation)}; the server has: ${names.join(', ') || 'none'}`,
  )
}

export function registerSkillCommands(program: Command): void {
  const skills = common(
    program
      .command('skills')
      .description("list a server's skills (the Skills extension); `skills get` fetches one")
      .argument('[target...]', TARGET),
  ).action(async (operands: string[], flags: CommonFlags) =>
    withClient(operands, flags, async (client) => {
      const { listSkills, SKILLS_EXTENSION } = await import('../../client/skills.js')
      const discovered = await client.discover()
      if (!(SKILLS_EXTENSION in (discovered.capabilities.extensions ?? {}))) {
        if (flags.json) console.log('[]')
        else console.log('(the server offers no skills)')
        return 0
      }
      const entries = await listSkills(client)
      if (flags.json) {
        console.log(JSON.stringify(entries, null, 2))
        return 0
      }
      if (entries.length === 0) console.log('(no skills)')
      for (const entry of entries) {
        const files = entry.resources === 'dynamic' ? 'dynamic' : `${entry.resources.length} file(s)`
        console.log(`${forTerminal(entry.frontmatter.name)} — ${forTerminal(entry.uri)} (${files})`)
        console.log(`    ${forTerminal(entry.frontmatter.description, { multiline: true })}`)
      }
      return 0
    }),
  )

  common(
    skills
      .command('get')
      .description('fetch a skill, every file verified: toolwire skills get <target> <name or skill URI>')
      .argument('[operands...]', `${TARGET}, then the skill's name or the URI of its SKILL.md`)
      .option(
        '--out-dir <dir>',
        'save the files under <dir>/<name>/ (never overwriting) instead of printing SKILL.md',
      ),
  ).action(async (operands: string[], flags: OutFlags) =>
    withClient(
      operands,
      flags,
      async (client, target) => {
        const [designation, ...extra] = target.rest
        if (!designation) throw new UsageError('give the name of the skill, or the URI of its SKILL.md')
        if (extra.length > 0)
          throw new UsageError(`unexpected argument(s) after the skill: ${extra.join(' ')}`)
        const { fetchSkill, readSkillFile } = await import('../../client/skills.js')
        const entry = await findSkill(client, designation)
        if (flags.outDir === undefined) {
          const skillMd = await readSkillFile(client, entry, entry.uri)
          if (flags.json)
            console.log(JSON.stringify({ ...entry, text: new TextDecoder().decode(skillMd.bytes) }, null, 2))
          else console.log(forTerminal(new TextDecoder().decode(skillMd.bytes), { multiline: true }))
          return 0
        }
        const files = await fetchSkill(client, entry)
        const saved = files.map((file) =>
          saveUnder(flags.outDir as string, [entry.frontmatter.name, ...file.path.split('/')], file.bytes),
        )
        if (flags.json) console.log(JSON.stringify({ ...entry, saved }, null, 2))
        else for (const path of saved) console.log(`saved ${path}`)
        return 0
      },
      (target) => requireOperand(target, 'the skill name', 'toolwire skills get <name> -- <command>'),
    ),
  )

  program
    .command('card')
    .description("fetch a server's Server Card (<url>/server-card) and check it against the schema")
    .argument('<url>', 'the MCP endpoint URL, or the URL of the card itself')
    .option('--json', 'print the card as JSON')
    .action(async (url: string, flags: { json?: boolean }) => {
      const { fetchServerCard } = await import('../../client/server-card.js')
      const card = await fetchServerCard(url)
      if (flags.json) {
        console.log(JSON.stringify(card, null, 2))
        return
      }
      console.log(
        `${forTerminal(card.title ?? card.name)} ${forTerminal(card.version)} (${forTerminal(card.name)})`,
      )
      console.log(`    ${forTerminal(card.description, { multiline: true })}`)
      for (const remote of card.remotes ?? []) {
        const versions = remote.supportedProtocolVersions?.join(', ') ?? 'unspecified'
        console.log(
          `${forTerminal(remote.type)} ${forTerminal(remote.url)} — protocol versions: ${forTerminal(versions)}`,
        )
      }
      if (card.websiteUrl) console.log(`website: ${forTerminal(card.websiteUrl)}`)
      if (card._meta) console.log(jsonForTerminal(card._meta))
    })
}
