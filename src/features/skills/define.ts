/**
 * `defineSkill`: a skill of the Skills extension (io.modelcontextprotocol/skills) from its `SKILL.md` and its
 * files, checked when it is defined: the front matter, the skill path, every file path and the sizes. A skill
 * that breaks a rule never reaches a server (extensions/skills §Skill Format, §Resource Mapping, §Limits).
 */
import type { RequestContext } from '../../protocol/context.js'
import { ToolwireError, type ToolwireErrorCode } from '../../wire/toolwire-error.js'
import {
  lazyYaml,
  parseFrontmatter,
  SKILL_NAME,
  type SkillFrontmatter,
} from '../../wire/skill-frontmatter.js'

/**
 * How large a skill may be. The file count and the total are the extension's own per-skill limits, which
 * every host must accept (extensions/skills §Limits); the per-file bound is toolwire's.
 */
export interface SkillLimits {
  /** Files per skill, `SKILL.md` included (default 512). */
  maxFiles: number
  /** Bytes of all files of a skill together (default 16 MiB). */
  maxTotalBytes: number
  /** Bytes of one file (default 4 MiB). */
  maxFileBytes: number
}

/**
 * The default bounds of a skill.
 *
 * @example
 * ```ts
 * const big = defineSkill({ skillMd, files, limits: { maxFileBytes: 2 * SKILL_LIMITS.maxFileBytes } })
 * ```
 */
export const SKILL_LIMITS: Readonly<SkillLimits> = {
  maxFiles: 512,
  maxTotalBytes: 16 * 1024 * 1024,
  maxFileBytes: 4 * 1024 * 1024,
}

/** What `defineSkill` takes. */
export interface SkillConfig {
  /** The whole `SKILL.md`, front matter included. */
  skillMd: string | Uint8Array
  /** The other files, by path relative to the skill's root (`/`-separated, e.g. `references/FORMS.md`). */
  files?: Readonly<Record<string, string | Uint8Array>>
  /**
   * Segments before the skill's name in its URI, e.g. `acme/billing` for `skill://acme/billing/refunds/SKILL.md`
   * (extensions/skills §Resource Mapping: an organizational prefix the server chooses). Default: none.
   */
  prefix?: string
  /** Scopes a caller needs to see and read this skill (enforced when the server authenticates HTTP). */
  scopes?: readonly string[]
  /** Whether a request may see and read this skill (e.g. by `ctx.principal`); hidden skills look unknown. */
  visible?: (ctx: RequestContext) => boolean
  /** Bounds on the skill's files (default `SKILL_LIMITS`). */
  limits?: Partial<SkillLimits>
}

/** One file of a skill, as served. */
export interface SkillFile {
  /** Path relative to the skill root, `/`-separated. */
  readonly path: string
  readonly uri: string
  readonly bytes: Uint8Array
  readonly mimeType: string
}

const SKILL = Symbol.for('toolwire.skill')

/**
 * A skill, checked and ready to serve: pass it to `defineServer({ skills })`.
 *
 * @example
 * ```ts
 * const skill = defineSkill({ skillMd: '---\nname: greet\ndescription: Say hello\n---\nSay hello.\n' })
 * console.log(skill.uri) // skill://greet/SKILL.md
 * ```
 */
export interface SkillDefinition {
  readonly [SKILL]: true
  /** The URI of its `SKILL.md`, which identifies the skill on this server. */
  readonly uri: string
  /** The skill root: `skill://<skill-path>` (extensions/skills §Directory Resources). */
  readonly root: string
  readonly frontmatter: SkillFrontmatter
  /** `SKILL.md` first, then the other files in path order. */
  readonly files: readonly SkillFile[]
  readonly scopes: readonly string[]
  readonly visible: ((ctx: RequestContext) => boolean) | undefined
}

/**
 * A skill definition breaks a rule: no or malformed front matter, a bad name or path, a file over the limits.
 *
 * @example
 * ```ts
 * try {
 *   defineSkill({ skillMd: '# no front matter' })
 * } catch (error) {
 *   if (error instanceof SkillDefinitionError) console.error(error.errorCode, error.message) // ERR_SKILL_DEFINITION
 * }
 * ```
 */
export class SkillDefinitionError extends ToolwireError {
  override readonly name = 'SkillDefinitionError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_SKILL_DEFINITION'
  }
}

// URI path segments we write unescaped; anything else in a file name is percent-encoded.
const PREFIX_SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/
const METADATA_RESERVED = 'io.modelcontextprotocol/'

const MIME_TYPES: Record<string, string> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  py: 'text/x-python',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  sh: 'text/x-shellscript',
  html: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Whether the bytes are UTF-8 text (served as `text`; otherwise as a base64 `blob`). */
export function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes)
    return true
  } catch {
    return false
  }
}

function mimeTypeOf(path: string, bytes: Uint8Array): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase()
  const known = extension === undefined ? undefined : MIME_TYPES[extension]
  return known ?? (isUtf8(bytes) ? 'text/plain' : 'application/octet-stream')
}

/** Why a relative file path is refused, or undefined: no absolute paths, no `.`/`..`, no empty segments. */
export function filePathProblem(path: string): string | undefined {
  if (path === '' || path.startsWith('/') || path.includes('\\'))
    return `file path ${JSON.stringify(path)} must be relative and /-separated`
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..')
      return `file path ${JSON.stringify(path)} leaves the skill folder or has an empty segment`
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(segment))
      return `file path ${JSON.stringify(path)} has a control character`
  }
  return undefined
}

const encodePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/')
const bytesOf = (content: string | Uint8Array): Uint8Array =>
  typeof content === 'string' ? new TextEncoder().encode(content) : content

/**
 * Defines a skill from its `SKILL.md` and files; throws `SkillDefinitionError` on any broken rule.
 *
 * @example
 * ```ts
 * const refunds = defineSkill({
 *   prefix: 'acme/billing',
 *   skillMd: '---\nname: refunds\ndescription: Process refund requests\n---\nSee examples/email.md.\n',
 *   files: { 'examples/email.md': 'Dear customer, …' },
 * })
 * const server = defineServer({ name: 'billing', version: '1.0.0', skills: [refunds] })
 * ```
 */
export function defineSkill(config: SkillConfig): SkillDefinition {
  const limits = { ...SKILL_LIMITS, ...config.limits }
  for (const [key, value] of Object.entries(limits))
    if (!Number.isSafeInteger(value) || value < 1)
      throw new SkillDefinitionError(`limits.${key} must be a positive integer`)
  const skillBytes = bytesOf(config.skillMd)
  const fail = (problem: string): never => {
    throw new SkillDefinitionError(`Invalid skill: ${problem}`)
  }
  if (!isUtf8(skillBytes)) fail('SKILL.md is not UTF-8 text')
  const parsed = parseFrontmatter(new TextDecoder().decode(skillBytes))
  if (!parsed.ok) return fail(parsed.problem)
  const frontmatter = parsed.frontmatter
  const { name } = frontmatter
  if (!SKILL_NAME.test(name))
    fail(`name ${JSON.stringify(name)} must be 1-64 lowercase letters, digits and single inner hyphens`)
  const metadata = frontmatter.metadata
  if (
    metadata !== undefined &&
    (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
  )
    fail(`${name}: metadata must be a mapping`)
  for (const key of Object.keys((metadata as Record<string, unknown> | undefined) ?? {}))
    if (key.startsWith(METADATA_RESERVED))
      fail(`${name}: metadata key ${key} uses the prefix ${METADATA_RESERVED}, reserved for MCP extensions`)
  const prefix = config.prefix ?? ''
  const prefixSegments = prefix === '' ? [] : prefix.split('/')
  for (const segment of prefixSegments)
    if (!PREFIX_SEGMENT.test(segment))
      fail(`${name}: prefix segment ${JSON.stringify(segment)} is not allowed`)
  const root = `skill://${[...prefixSegments, name].join('/')}`
  const files: SkillFile[] = [
    { path: 'SKILL.md', uri: `${root}/SKILL.md`, bytes: skillBytes, mimeType: 'text/markdown' },
  ]
  const others = Object.entries(config.files ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  for (const [path, content] of others) {
    const problem = filePathProblem(path)
    if (problem) fail(`${name}: ${problem}`)
    if (path === 'SKILL.md') fail(`${name}: SKILL.md is given as skillMd, not among files`)
    const bytes = bytesOf(content)
    files.push({ path, uri: `${root}/${encodePath(path)}`, bytes, mimeType: mimeTypeOf(path, bytes) })
  }
  if (files.length > limits.maxFiles) fail(`${name}: ${files.length} files, over maxFiles ${limits.maxFiles}`)
  let total = 0
  for (const file of files) {
    if (file.bytes.byteLength > limits.maxFileBytes)
      fail(
        `${name}: ${file.path} is ${file.bytes.byteLength} bytes, over maxFileBytes ${limits.maxFileBytes}`,
      )
    total += file.bytes.byteLength
  }
  if (total > limits.maxTotalBytes)
    fail(`${name}: the files total ${total} bytes, over maxTotalBytes ${limits.maxTotalBytes}`)
  return Object.freeze({
    [SKILL]: true as const,
    uri: `${root}/SKILL.md`,
    root,
    frontmatter,
    files: Object.freeze(files),
    scopes: Object.freeze([...(config.scopes ?? [])]),
    visible: config.visible,
  })
}

/**
 * Loads what `defineSkill` needs (the YAML parser) where it cannot be loaded on the spot: an application
 * bundled for a runtime without `require` (a Worker). On Node, Bun and Deno there is no need to call it.
 *
 * @example
 * ```ts
 * await prepareSkills()
 * const skill = defineSkill({ skillMd })
 * ```
 */
export async function prepareSkills(): Promise<void> {
  await lazyYaml.load()
}

/** Whether a value came from `defineSkill`. */
export const isSkillDefinition = (value: unknown): value is SkillDefinition =>
  typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SKILL] === true
