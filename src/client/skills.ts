/**
 * The client side of the Skills extension (io.modelcontextprotocol/skills): list skills, get one by URI, and
 * read its files verified against the entry (extensions/skills §Integrity and Verification). Nothing is read
 * ahead of need (§Lazy Retrieval): listing fetches no file. Everything the server sends is bounded: the
 * entries, the number and total size of a skill's files, each read.
 */
import { base64ToBytes } from '../wire/base64.js'
import { isRecord } from '../wire/jsonrpc.js'
import { DIGEST_PATTERN, skillDigest, SKILLS_EXTENSION } from '../wire/skill-digest.js'
import { lazyYaml, parseFrontmatter, type SkillFrontmatter } from '../wire/skill-frontmatter.js'
import { ToolwireError, type ToolwireErrorCode } from '../wire/toolwire-error.js'
import type { Client } from './client.js'
import { InvalidResponseError } from './errors.js'

export { SKILLS_EXTENSION }

/** One file of a skill, as its entry describes it. */
export interface SkillResource {
  readonly uri: string
  /** `sha256:` and 64 lowercase hex digits of the file's bytes. */
  readonly digest: string
  readonly size: number
}

/** A skill as `skills/list` and `skills/get` describe it (extensions/skills §Skill Entries). */
export interface SkillEntry {
  /** The URI of its `SKILL.md`. */
  readonly uri: string
  readonly frontmatter: SkillFrontmatter
  /** Every file of the skill, or `'dynamic'` when the server publishes no digests. */
  readonly resources: readonly SkillResource[] | 'dynamic'
}

/** A file read and verified against its entry. */
export interface VerifiedSkillFile {
  readonly uri: string
  /** The path relative to the skill root (`SKILL.md`, `references/FORMS.md`). */
  readonly path: string
  readonly bytes: Uint8Array
  readonly mimeType?: string
}

/** How much a client accepts from a server (defaults: the extension's limits, extensions/skills §Limits). */
export interface SkillClientLimits {
  /** Skill entries one listing may hold (default 10,000). */
  maxSkills?: number
  /** Files one skill may have (default 512). */
  maxFiles?: number
  /** Bytes of one skill's files together (default 16 MiB). */
  maxTotalBytes?: number
}

export interface SkillCallOptions extends SkillClientLimits {
  readonly signal?: AbortSignal
}

/**
 * The defaults of `SkillClientLimits`: the sizes the extension requires every host to accept.
 *
 * @example
 * ```ts
 * const skills = await listSkills(client, { maxSkills: SKILL_CLIENT_LIMITS.maxSkills / 10 })
 * ```
 */
export const SKILL_CLIENT_LIMITS: Readonly<Required<SkillClientLimits>> = {
  maxSkills: 10_000,
  maxFiles: 512,
  maxTotalBytes: 16 * 1024 * 1024,
}

/**
 * A skill failed verification: a digest or size that does not match its entry, a front matter that differs,
 * a file the entry does not list, an entry that breaks the extension's rules or the client's limits. The
 * content must not be used (extensions/skills §Verification on Read); refresh the entry with `getSkill`.
 *
 * @example
 * ```ts
 * try {
 *   await readSkillFile(client, entry, entry.uri)
 * } catch (error) {
 *   if (error instanceof SkillVerificationError) entry = await getSkill(client, entry.uri) // stale: refresh
 * }
 * ```
 */
export class SkillVerificationError extends ToolwireError {
  override readonly name = 'SkillVerificationError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_SKILL_VERIFICATION'
  }
}

const limitsOf = (options: SkillCallOptions): Required<SkillClientLimits> => ({
  maxSkills: options.maxSkills ?? SKILL_CLIENT_LIMITS.maxSkills,
  maxFiles: options.maxFiles ?? SKILL_CLIENT_LIMITS.maxFiles,
  maxTotalBytes: options.maxTotalBytes ?? SKILL_CLIENT_LIMITS.maxTotalBytes,
})

/** The directory of a `SKILL.md` URI: what every file of the skill must be under. */
const rootOf = (uri: string): string => uri.slice(0, uri.lastIndexOf('/'))

/** An entry checked against the extension's rules and the client's limits. */
function checkEntry(value: unknown, limits: Required<SkillClientLimits>): SkillEntry {
  const fail = (problem: string): never => {
    throw new SkillVerificationError(`Invalid skill entry: ${problem}`)
  }
  if (!isRecord(value) || typeof value.uri !== 'string') return fail('no uri')
  const { uri, frontmatter, resources } = value
  if (!uri.endsWith('/SKILL.md')) fail(`${uri} does not name a SKILL.md`)
  if (
    !isRecord(frontmatter) ||
    typeof frontmatter.name !== 'string' ||
    typeof frontmatter.description !== 'string'
  )
    return fail(`${uri}: frontmatter needs a name and a description`)
  const root = rootOf(uri)
  // extensions/skills §Resource Mapping: the final skill-path segment is the skill's name.
  if (root.slice(root.lastIndexOf('/') + 1) !== frontmatter.name)
    fail(`${uri}: the name ${JSON.stringify(frontmatter.name)} is not the last segment of the skill path`)
  if (resources === 'dynamic') return value as unknown as SkillEntry
  if (!Array.isArray(resources)) return fail(`${uri}: resources must be an array or "dynamic"`)
  if (resources.length > limits.maxFiles)
    fail(`${uri}: ${resources.length} files, over maxFiles ${limits.maxFiles}`)
  let total = 0
  let listsSkillMd = false
  const seen = new Set<string>()
  for (const resource of resources) {
    if (!isRecord(resource) || typeof resource.uri !== 'string') return fail(`${uri}: a resource has no uri`)
    const { digest, size } = resource
    if (typeof digest !== 'string' || !DIGEST_PATTERN.test(digest)) fail(`${resource.uri}: malformed digest`)
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) fail(`${resource.uri}: bad size`)
    if (!resource.uri.startsWith(`${root}/`)) fail(`${resource.uri} is outside the skill ${root}`)
    if (seen.has(resource.uri)) fail(`${resource.uri} is listed twice`)
    seen.add(resource.uri)
    if (resource.uri === uri) listsSkillMd = true
    total += size as number
  }
  if (!listsSkillMd) fail(`${uri}: resources do not list SKILL.md`)
  if (total > limits.maxTotalBytes)
    fail(`${uri}: the files total ${total} bytes, over maxTotalBytes ${limits.maxTotalBytes}`)
  return value as unknown as SkillEntry
}

function requireExtension(capabilities: Record<string, unknown> | undefined): void {
  if (!capabilities || !(SKILLS_EXTENSION in capabilities))
    throw new SkillVerificationError(`the server does not declare the ${SKILLS_EXTENSION} extension`)
}

/**
 * Every skill the server lists, following cursors; no file is read (extensions/skills §Lazy Retrieval).
 *
 * @example
 * ```ts
 * for (const skill of await listSkills(client)) console.log(skill.frontmatter.name, skill.uri)
 * ```
 */
export async function listSkills(client: Client, options: SkillCallOptions = {}): Promise<SkillEntry[]> {
  requireExtension((await client.discover()).capabilities.extensions)
  const limits = limitsOf(options)
  const skills: SkillEntry[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  for (;;) {
    const result = await client.request('skills/list', cursor === undefined ? {} : { cursor }, {
      ...(options.signal && { signal: options.signal }),
    })
    if (!Array.isArray(result.skills))
      throw new InvalidResponseError('skills/list: the result has no skills array')
    for (const value of result.skills) {
      if (skills.length >= limits.maxSkills)
        throw new SkillVerificationError(`skills/list: more than maxSkills ${limits.maxSkills} skills`)
      skills.push(checkEntry(value, limits))
    }
    const next = result.nextCursor
    if (typeof next !== 'string') return skills
    if (seen.has(next)) throw new InvalidResponseError('skills/list: the server repeated a cursor')
    seen.add(next)
    cursor = next
  }
}

/**
 * The entry of the skill whose `SKILL.md` is `uri` (a skill not listed is still reachable by its URI).
 *
 * @example
 * ```ts
 * const entry = await getSkill(client, 'skill://pdf-processing/SKILL.md')
 * ```
 */
export async function getSkill(
  client: Client,
  uri: string,
  options: SkillCallOptions = {},
): Promise<SkillEntry> {
  requireExtension((await client.discover()).capabilities.extensions)
  const result = await client.request(
    'skills/get',
    { uri },
    { ...(options.signal && { signal: options.signal }) },
  )
  const entry = checkEntry(result.skill, limitsOf(options))
  if (entry.uri !== uri)
    throw new SkillVerificationError(`skills/get ${uri} answered the entry of ${entry.uri}`)
  return entry
}

/**
 * Reads one file of a skill and verifies its size and digest against the entry; `SKILL.md` is also checked
 * to carry the entry's front matter (extensions/skills §Frontmatter Verification). A file the entry does not
 * list is refused before it is read.
 *
 * @example
 * ```ts
 * const file = await readSkillFile(client, entry, entry.uri)
 * console.log(new TextDecoder().decode(file.bytes))
 * ```
 */
export async function readSkillFile(
  client: Client,
  entry: SkillEntry,
  uri: string,
  options: { signal?: AbortSignal } = {},
): Promise<VerifiedSkillFile> {
  const listed = entry.resources === 'dynamic' ? undefined : entry.resources.find((r) => r.uri === uri)
  if (entry.resources !== 'dynamic' && !listed)
    throw new SkillVerificationError(`${uri} is not a file of the skill ${entry.uri} as its entry lists it`)
  if (entry.resources === 'dynamic' && !uri.startsWith(`${rootOf(entry.uri)}/`))
    throw new SkillVerificationError(`${uri} is outside the skill ${entry.uri}`)
  const read = await client.readResource(uri, options)
  const content = read.contents.find((c) => c.uri === uri) ?? read.contents[0]
  if (!content) throw new SkillVerificationError(`${uri}: the read returned no contents`)
  let bytes: Uint8Array
  if ('text' in content && typeof content.text === 'string') {
    // Counted in UTF-16 units first: a text longer than 3 bytes a unit could allow is refused unencoded.
    if (listed && content.text.length > listed.size)
      throw new SkillVerificationError(
        `${uri}: ${content.text.length} characters, over the entry's size ${listed.size}`,
      )
    bytes = new TextEncoder().encode(content.text)
  } else if ('blob' in content && typeof content.blob === 'string') {
    if (listed && content.blob.length > Math.ceil(listed.size / 3) * 4 + 4)
      throw new SkillVerificationError(`${uri}: the blob is longer than the entry's size ${listed.size}`)
    try {
      bytes = base64ToBytes(content.blob)
    } catch {
      throw new SkillVerificationError(`${uri}: the blob is not base64`)
    }
  } else throw new SkillVerificationError(`${uri}: the contents have neither text nor blob`)
  if (listed) {
    // extensions/skills §Resources: a size mismatch fails whether or not the digest is computed.
    if (bytes.byteLength !== listed.size)
      throw new SkillVerificationError(`${uri}: ${bytes.byteLength} bytes, but the entry says ${listed.size}`)
    const digest = await skillDigest(bytes)
    if (digest !== listed.digest)
      throw new SkillVerificationError(`${uri}: digest ${digest} does not match the entry's ${listed.digest}`)
  }
  if (uri === entry.uri) {
    await lazyYaml.load()
    checkFrontmatter(entry, bytes)
  }
  const file: VerifiedSkillFile = {
    uri,
    path: decodeURIComponent(uri.slice(rootOf(entry.uri).length + 1)),
    bytes,
    ...(content.mimeType !== undefined && { mimeType: content.mimeType }),
  }
  return file
}

/** The fetched `SKILL.md`'s front matter must equal the entry's, field by field. */
function checkFrontmatter(entry: SkillEntry, bytes: Uint8Array): void {
  const parsed = parseFrontmatter(new TextDecoder().decode(bytes))
  if (!parsed.ok) throw new SkillVerificationError(`${entry.uri}: ${parsed.problem}`)
  if (canonical(parsed.frontmatter) !== canonical(entry.frontmatter))
    throw new SkillVerificationError(`${entry.uri}: the front matter differs from the entry's`)
}

/** JSON with object keys sorted, so key order does not count as a difference. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (isRecord(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'null'
}

/**
 * Reads every file of a skill (`SKILL.md` first, which is checked before anything else is read), each
 * verified; for saving a skill to disk. A skill whose resources are `'dynamic'` cannot be verified and is
 * refused.
 *
 * @example
 * ```ts
 * const files = await fetchSkill(client, entry)
 * for (const file of files) console.log(file.path, file.bytes.byteLength)
 * ```
 */
export async function fetchSkill(
  client: Client,
  entry: SkillEntry,
  options: { signal?: AbortSignal } = {},
): Promise<VerifiedSkillFile[]> {
  if (entry.resources === 'dynamic')
    throw new SkillVerificationError(`${entry.uri} is dynamic: its files have no digests to verify`)
  const files = [await readSkillFile(client, entry, entry.uri, options)]
  for (const resource of entry.resources)
    if (resource.uri !== entry.uri) files.push(await readSkillFile(client, entry, resource.uri, options))
  return files
}
