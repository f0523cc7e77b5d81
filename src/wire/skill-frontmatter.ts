/**
 * A `SKILL.md`'s YAML front matter, read the same way on the server (when a skill is defined) and on the
 * client (when a fetched `SKILL.md` is compared with its entry, extensions/skills §Frontmatter Verification).
 * The YAML itself is parsed by the `yaml` package; this module only finds the block and checks the result is
 * a JSON object, since the entry carries it "rendered verbatim as a JSON object" (extensions/skills
 * §Frontmatter). `yaml` is loaded on first need (wire/lazy-modules.ts), so a server or client that never
 * touches a skill does not pay for it at start-up.
 */
import type * as YamlModule from 'yaml'
import { LazyModules } from './lazy-modules.js'

type Yaml = Pick<typeof YamlModule, 'parseDocument'>

/** The YAML parser: `now()` on Node, Bun and Deno; `load()` where it can only be imported. */
export const lazyYaml = new LazyModules<Yaml>(
  (require) => require('yaml') as Yaml,
  () => import('yaml'),
)

/** The front matter of a `SKILL.md`: `name` and `description` always, every other field as written. */
export interface SkillFrontmatter {
  name: string
  description: string
  [key: string]: unknown
}

/** The parsed front matter, or why there is none. */
export type FrontmatterOutcome = { ok: true; frontmatter: SkillFrontmatter } | { ok: false; problem: string }

// The block opens on the first line and closes at the next line holding only `---` (Agent Skills: "SKILL.md
// must contain YAML frontmatter followed by Markdown content").
const BLOCK = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/

/** The Agent Skills naming rule: 1–64 lowercase letters, digits and single inner hyphens. */
export const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/

/** Whether a value survives JSON unchanged (finite numbers, plain objects and arrays). */
function jsonProblem(value: unknown, where: string): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${where} is not a finite number`
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const problem = jsonProblem(item, `${where}[${index}]`)
      if (problem) return problem
    }
    return undefined
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) {
      const problem = jsonProblem(item, `${where}.${key}`)
      if (problem) return problem
    }
    return undefined
  }
  return `${where} is not a JSON value`
}

/**
 * Parses the front matter of a `SKILL.md` text; never throws. Needs the YAML parser loaded: synchronously
 * where `require` reaches it, else after `await lazyYaml.load()`.
 */
export function parseFrontmatter(text: string): FrontmatterOutcome {
  const block = BLOCK.exec(text)
  if (!block) return { ok: false, problem: 'SKILL.md does not begin with a --- delimited YAML front matter' }
  const yaml = lazyYaml.now()
  if (!yaml)
    return {
      ok: false,
      problem:
        'the YAML parser is not loaded on this runtime yet: await prepareSkills() before defining skills',
    }
  const document = yaml.parseDocument(block[1] ?? '', {
    uniqueKeys: true,
    schema: 'core',
    prettyErrors: false,
  })
  const error = document.errors[0]
  if (error) return { ok: false, problem: `the front matter is not valid YAML: ${error.message}` }
  let value: unknown
  try {
    // Aliases are expanded by toJS; a bound keeps a "billion laughs" front matter from expanding without end.
    value = document.toJS({ maxAliasCount: 100 })
  } catch (cause) {
    return { ok: false, problem: `the front matter cannot be read: ${String(cause)}` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, problem: 'the front matter is not a YAML mapping' }
  const problem = jsonProblem(value, 'frontmatter')
  if (problem) return { ok: false, problem }
  const record = value as Record<string, unknown>
  if (typeof record.name !== 'string' || record.name === '')
    return { ok: false, problem: 'the front matter has no name' }
  if (typeof record.description !== 'string' || record.description.trim() === '')
    return { ok: false, problem: 'the front matter has no description' }
  return { ok: true, frontmatter: record as SkillFrontmatter }
}
