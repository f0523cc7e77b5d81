/**
 * The Skills extension's methods: `skills/list`, `skills/get` and `resources/directory/read`, plus the reads
 * of skill files through `resources/read` (extensions/skills §Listing Skills, §Getting a Skill, §Reading
 * Directories, §Reading Skill Content). A skill a caller may not see is absent from its list and answers
 * every other method as if it did not exist (-32602), so its name never leaks.
 */
import type { RequestContext } from '../../protocol/context.js'
import type { MethodSpec } from '../../protocol/dispatcher.js'
import { decodeCursor, encodeCursor, staleCursor } from '../../protocol/pagination.js'
import { bytesToBase64 } from '../../wire/base64.js'
import { invalidParams, notFound } from '../../wire/errors.js'
import { META_SERVER_INFO } from '../../wire/meta.js'
import type { CacheScope, Implementation } from '../../wire/types.js'
import { isUtf8, type SkillDefinition } from './define.js'
import type { SkillSet } from './set.js'

export interface SkillMethodOptions {
  readonly pageSize: number
  readonly ttlMs: number
  readonly cacheScope: CacheScope
  readonly serverInfo: Implementation | undefined
  /** Whether the server authenticates HTTP requests: only then are a skill's `scopes` enforced. */
  readonly authenticates: boolean
}

/** What the server wires in: the methods, and the `resources/read` of skill files (undefined: not a skill file). */
export interface SkillMethods {
  readonly methods: Record<string, MethodSpec>
  readResource(ctx: RequestContext): Record<string, unknown> | undefined
}

export function skillMethods(set: SkillSet, options: SkillMethodOptions): SkillMethods {
  const visible = (skill: SkillDefinition, ctx: RequestContext): boolean => {
    if (skill.visible && !skill.visible(ctx)) return false
    if (!options.authenticates || skill.scopes.length === 0) return true
    const granted = ctx.auth?.scopes
    // No HTTP auth on stdio: the local user who started the server is trusted, as for tools
    // (authorization §Protocol Requirements).
    if (granted === undefined) return ctx.exchange.transport !== 'http'
    return skill.scopes.every((scope) => granted.includes(scope))
  }
  const anyVisible = (owners: ReadonlySet<SkillDefinition>, ctx: RequestContext): boolean => {
    for (const owner of owners) if (visible(owner, ctx)) return true
    return false
  }
  // A list that depends on who asks must not be shared by caches (basic/utilities §Caching: cacheScope).
  const perCaller = set.skills.some(
    (s) => s.visible !== undefined || (options.authenticates && s.scopes.length > 0),
  )
  const cacheScope: CacheScope = perCaller ? 'private' : options.cacheScope
  const finish = (result: Record<string, unknown>): Record<string, unknown> => {
    if (options.serverInfo) result._meta = { [META_SERVER_INFO]: options.serverInfo }
    return result
  }
  const uriParam = (ctx: RequestContext, method: string): string => {
    const { uri } = ctx.params
    if (typeof uri !== 'string' || uri === '')
      throw invalidParams(`Invalid params: ${method} needs a string uri`)
    return uri
  }

  const methods: Record<string, MethodSpec> = {
    'skills/list': {
      handler: async (ctx) => {
        const { items, nextCursor } = page(set.skills, ctx.params.cursor, options.pageSize, (skill) => ({
          key: skill.uri,
          listed: visible(skill, ctx),
        }))
        const skills = await Promise.all(items.map((skill) => set.entry(skill)))
        const result: Record<string, unknown> = {
          resultType: 'complete',
          skills,
          ttlMs: options.ttlMs,
          cacheScope,
        }
        if (nextCursor !== undefined) result.nextCursor = nextCursor
        return finish(result)
      },
    },
    'skills/get': {
      handler: async (ctx) => {
        const uri = uriParam(ctx, 'skills/get')
        const skill = set.skill(uri)
        // extensions/skills §Getting a Skill: an unknown skill is -32602, as resources/read answers.
        if (!skill || !visible(skill, ctx)) throw notFound(`No skill is served at ${uri}`, { uri })
        const entry = await set.entry(skill)
        return finish({ resultType: 'complete', skill: entry, ttlMs: options.ttlMs, cacheScope })
      },
    },
    'resources/directory/read': {
      handler: (ctx) => {
        const uri = uriParam(ctx, 'resources/directory/read')
        const directory = set.directory(uri)
        if (!directory || !anyVisible(directory.owners, ctx)) {
          // extensions/skills §Reading Directories: a missing or non-directory URI is -32602.
          const what = set.file(uri) ? 'is not a directory resource' : 'is not a directory this server serves'
          throw notFound(`${uri} ${what}`, { uri })
        }
        const { items, nextCursor } = page(
          directory.children,
          ctx.params.cursor,
          options.pageSize,
          (child) => ({
            key: child.uri,
            listed: anyVisible(child.owners, ctx),
          }),
        )
        const resources = items.map((child) => ({
          uri: child.uri,
          name: child.name,
          ...(child.description !== undefined && { description: child.description }),
          mimeType: child.mimeType,
        }))
        const result: Record<string, unknown> = { resultType: 'complete', resources }
        if (nextCursor !== undefined) result.nextCursor = nextCursor
        return finish(result)
      },
    },
  }

  return {
    methods,
    readResource(ctx) {
      const { uri } = ctx.params
      if (typeof uri !== 'string') return undefined
      const found = set.file(uri)
      if (!found || !anyVisible(found.owners, ctx)) {
        // A directory is not readable content, and a hidden skill's file is not served at all; anything
        // else is not a skill URI and goes on to the ordinary resources.
        if (found || set.directory(uri)) throw notFound(`Resource not found: ${uri}`, { uri })
        return undefined
      }
      const { file } = found
      const content: Record<string, unknown> = { uri, mimeType: file.mimeType }
      // Text as text (exactly the UTF-8 bytes the digest covers, BOM kept), anything else as a base64 blob.
      if (isUtf8(file.bytes) && file.mimeType !== 'application/octet-stream')
        content.text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(file.bytes)
      else content.blob = bytesToBase64(file.bytes)
      return finish({ resultType: 'complete', contents: [content], ttlMs: options.ttlMs, cacheScope })
    },
  }
}

/**
 * One page of a fixed list, after the item the cursor names (protocol/pagination.ts). The lists never change
 * after the server is defined, so a cursor names its item by index and key; one that does not match is stale.
 */
function page<T>(
  all: readonly T[],
  cursor: unknown,
  pageSize: number,
  describe: (item: T) => { key: string; listed: boolean },
): { items: T[]; nextCursor: string | undefined } {
  const after = decodeCursor(cursor)
  let start = 0
  if (after !== undefined) {
    const item = all[after.serial]
    if (item === undefined || describe(item).key !== after.key) throw staleCursor()
    start = after.serial + 1
  }
  const items: T[] = []
  let lastIndex = -1
  for (let index = start; index < all.length; index++) {
    const item = all[index] as T
    if (!describe(item).listed) continue
    if (items.length === pageSize) {
      const last = items.at(-1) as T
      return { items, nextCursor: encodeCursor({ serial: lastIndex, key: describe(last).key }) }
    }
    items.push(item)
    lastIndex = index
  }
  return { items, nextCursor: undefined }
}
