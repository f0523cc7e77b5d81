/**
 * The official JSON Schema Test Suite (vendored in test/vendor/json-schema-test-suite, see its README): every
 * required test of draft 2020-12, 2019-09 and draft-07, and `optional/format` for the formats toolwire checks
 * (ajv-formats' formats, in both validators), run through the paths a value takes in toolwire:
 *
 * - `ajv` and `interpreted`: a server's tool schema (`prepareSchema`, as `defineServer` prepares
 *   `inputSchema` and `outputSchema`; both directions share that validator), checked with `validateAsync`
 *   as a `tools/call` checks arguments and results, with the validator forced to each engine;
 * - `client`: the client's check of `structuredContent` against a listed tool's `outputSchema` (an
 *   untrusted schema: RE2 patterns, local references only).
 *
 * The suite's remote documents (`http://localhost:1234/…`) are bundled into the schemas that name them
 * (withRemotes), the way a tool author would ship them: toolwire never fetches a schema.
 *
 * A test that cannot pass is listed with its reason in known-limits.json beside the suite; this test fails
 * when an unlisted test fails, when a listed one passes (the list stays honest), and when the two engines
 * of the server give different verdicts on a test neither lists.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ToolBook } from '../src/client/tools.js'
import { SchemaCompiler } from '../src/schema/json-schema.js'
import { prepareSchema } from '../src/schema/standard.js'
import type { Tool } from '../src/wire/types.js'

const SUITE = join(import.meta.dirname, 'vendor/json-schema-test-suite')
const DRAFTS = ['draft2020-12', 'draft2019-09', 'draft7'] as const
type Draft = (typeof DRAFTS)[number]
const PATHS = ['ajv', 'interpreted', 'client'] as const
type PathName = (typeof PATHS)[number]
const DIALECT: Record<Draft, string> = {
  'draft2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft2019-09': 'https://json-schema.org/draft/2019-09/schema',
  draft7: 'http://json-schema.org/draft-07/schema#',
}

/**
 * ajv-formats' formats, which both validators check (docs/schemas.md, Validators); the suite's other format
 * files test formats toolwire does not claim.
 */
const CHECKED_FORMATS = new Set([
  ...['date', 'time', 'date-time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid'],
  ...['uri', 'uri-reference', 'uri-template', 'json-pointer', 'relative-json-pointer'],
])

interface SuiteTest {
  readonly description: string
  readonly data: unknown
  readonly valid: boolean
}
interface SuiteGroup {
  readonly description: string
  readonly schema: unknown
  readonly tests: readonly SuiteTest[]
}
interface Limit {
  readonly draft: Draft
  readonly file: string
  readonly group: string
  /** Absent: every test of the group. */
  readonly test?: string
  /** Absent: every path. */
  readonly paths?: readonly PathName[]
  readonly reason: string
}

const LIMITS = JSON.parse(readFileSync(join(SUITE, 'known-limits.json'), 'utf8')) as {
  readonly limits: readonly Limit[]
}

/** The suite's files for a draft: the required ones, then the checked formats. */
function suiteFiles(draft: Draft): string[] {
  const dir = join(SUITE, 'tests', draft)
  const required = readdirSync(dir).filter((name) => name.endsWith('.json'))
  const formats = readdirSync(join(dir, 'optional/format'))
    .filter((name) => CHECKED_FORMATS.has(name.replace(/\.json$/, '')))
    .map((name) => `optional/format/${name}`)
  return [...required.sort(), ...formats.sort()]
}

type Verdict = 'valid' | 'invalid' | 'refused'

const REMOTE = 'http://localhost:1234/'

/** The suite's remote documents for a draft, by URL: its own folder and the draft-neutral ones. */
function remotesOf(draft: Draft): Map<string, Record<string, unknown>> {
  const remotes = new Map<string, Record<string, unknown>>()
  const root = join(SUITE, 'remotes')
  const visit = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir ? `${dir}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        if (dir !== '' || !entry.name.startsWith('draft') || entry.name === draft) visit(path)
        continue
      }
      const document = JSON.parse(readFileSync(join(root, path), 'utf8')) as Record<string, unknown>
      // Meta-schemas are only named by `$schema`; a document whose `$id` is not its URL cannot be bundled
      // under that URL (the suite's tests of exactly that stay listed).
      if (entry.name.startsWith('metaschema-') || entry.name.startsWith('format-assertion-')) continue
      if (typeof document.$id === 'string' && document.$id !== `${REMOTE}${path}`) continue
      const { $schema: _dialect, ...rest } = document
      remotes.set(`${REMOTE}${path}`, { ...rest, $id: `${REMOTE}${path}` })
    }
  }
  visit('')
  return remotes
}
const REMOTES = new Map(DRAFTS.map((draft) => [draft, remotesOf(draft)]))

/**
 * A schema that refers to the suite's remotes (`http://localhost:1234/…`) with those documents bundled in
 * as embedded resources (each `$id` its URL; 2020-12 core §9.3 Compound Documents): toolwire never fetches
 * a schema, and both validators resolve an embedded resource by its `$id`, with no network and no registry.
 */
function withRemotes(draft: Draft, schema: Record<string, unknown>): Record<string, unknown> {
  let text = JSON.stringify(schema)
  if (!text.includes(REMOTE)) return schema
  const container = draft === 'draft7' ? 'definitions' : '$defs'
  const bundled: Record<string, unknown> = { ...(schema[container] as Record<string, unknown> | undefined) }
  // Only the documents the schema names (by file name, however it spells the URL), and those they name.
  const named = (url: string) => {
    const file = url.slice(url.lastIndexOf('/') + 1)
    return text.includes(`/${file}`) || text.includes(`"${file}`)
  }
  for (let grown = true; grown;) {
    grown = false
    for (const [url, document] of REMOTES.get(draft) ?? []) {
      const key = `remote ${url}`
      if (key in bundled || !named(url)) continue
      bundled[key] = document
      text += JSON.stringify(document)
      grown = true
    }
  }
  return { ...schema, [container]: bundled }
}

const shared = new Map<string, SchemaCompiler>()
/**
 * A server has one compiler for all its schemas. Groups that name no resource (`$id`) or anchor share one per
 * draft and engine, as the tools of one server would (building ajv for 2019-09 or draft-07 compiles its
 * meta-schema, most of this test's time); the others get their own, so no group resolves another's `$id`.
 */
function compilerFor(
  path: 'ajv' | 'interpreted',
  draft: Draft,
  schema: Record<string, unknown>,
): SchemaCompiler {
  if (/"\$(id|anchor|dynamicAnchor|recursiveAnchor)"/.test(JSON.stringify(schema)))
    return new SchemaCompiler({ validator: path })
  const key = `${draft} ${path}`
  let compiler = shared.get(key)
  if (!compiler) shared.set(key, (compiler = new SchemaCompiler({ validator: path })))
  return compiler
}

/** Each path's verdicts on a group's data; `refused` for every value when the path refuses the schema. */
async function verdicts(
  path: PathName,
  draft: Draft,
  schema: unknown,
  data: readonly unknown[],
): Promise<Verdict[]> {
  // toolwire reads the dialect from `$schema` (2020-12 without one); the suite's draft-07 schemas omit it.
  const record =
    typeof schema === 'object' && schema !== null && !('$schema' in schema)
      ? { $schema: DIALECT[draft], ...schema }
      : (schema as Record<string, unknown>)
  const bundled = typeof schema === 'object' && schema !== null ? withRemotes(draft, record) : record
  try {
    if (path === 'client') {
      const book = new ToolBook()
      const tool = { name: 't', inputSchema: { type: 'object' }, outputSchema: bundled } as unknown as Tool
      book.accept([tool], false, () => undefined)
      return data.map((value) => {
        const issues = book.checkOutput('t', value)
        if (issues.some((issue) => issue.includes('invalid JSON Schema'))) return 'refused'
        return issues.length === 0 ? 'valid' : 'invalid'
      })
    }
    const compiler = compilerFor(path, draft, bundled)
    const prepared = prepareSchema(bundled, 'input', 'suite schema', compiler)
    const out: Verdict[] = []
    for (const value of data) {
      const outcome = await prepared.validateAsync(value)
      out.push(outcome.ok ? 'valid' : 'invalid')
    }
    return out
  } catch {
    return data.map(() => 'refused')
  }
}

const limitFor = (draft: Draft, file: string, group: string, test: string, path: PathName) =>
  LIMITS.limits.find(
    (limit) =>
      limit.draft === draft &&
      limit.file === file &&
      limit.group === group &&
      (limit.test === undefined || limit.test === test) &&
      (limit.paths === undefined || limit.paths.includes(path)),
  )

describe('the official JSON Schema Test Suite', () => {
  const usedLimits = new Set<Limit>()

  for (const draft of DRAFTS) {
    it(`${draft}: every test passes on every path, or is a listed limit`, async () => {
      const unexpected: string[] = []
      const stale: string[] = []
      const disagreements: string[] = []
      const score = Object.fromEntries(PATHS.map((path) => [path, { passed: 0, total: 0, listed: 0 }]))
      for (const file of suiteFiles(draft)) {
        const groups = JSON.parse(readFileSync(join(SUITE, 'tests', draft, file), 'utf8')) as SuiteGroup[]
        for (const group of groups) {
          const data = group.tests.map((test) => test.data)
          const byPath = new Map<PathName, Verdict[]>()
          for (const path of PATHS) byPath.set(path, await verdicts(path, draft, group.schema, data))
          for (const [index, test] of group.tests.entries()) {
            const name = `${draft}/${file} | ${group.description} | ${test.description}`
            const expected: Verdict = test.valid ? 'valid' : 'invalid'
            let listedOnAny = false
            for (const path of PATHS) {
              const got = byPath.get(path)?.[index]
              const limit = limitFor(draft, file, group.description, test.description, path)
              const tally = score[path] as { passed: number; total: number; listed: number }
              tally.total++
              if (limit) {
                usedLimits.add(limit)
                tally.listed++
                listedOnAny = true
                if (got === expected) stale.push(`${name} [${path}] passes now: ${limit.reason}`)
              } else if (got === expected) tally.passed++
              else unexpected.push(`${name} [${path}]: expected ${expected}, got ${got}`)
            }
            const [ajv, interpreted] = [byPath.get('ajv')?.[index], byPath.get('interpreted')?.[index]]
            if (!listedOnAny && ajv !== interpreted)
              disagreements.push(`${name}: ajv ${ajv}, interpreted ${interpreted}`)
          }
        }
      }
      for (const path of PATHS) {
        const { passed, total, listed } = score[path] as { passed: number; total: number; listed: number }
        console.log(`${draft} ${path}: ${passed}/${total} passed (${listed} listed limits)`)
      }
      expect(unexpected).toEqual([])
      expect(stale).toEqual([])
      expect(disagreements).toEqual([])
    }, 120_000)
  }

  it('every listed limit names a test of the suite', () => {
    const unused = LIMITS.limits.filter((limit) => !usedLimits.has(limit))
    expect(unused).toEqual([])
    for (const limit of LIMITS.limits) expect(limit.reason.length).toBeGreaterThan(10)
  })
})
