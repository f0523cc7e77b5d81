/**
 * The skills one server serves, indexed for the extension's methods: skill entries with their digests
 * (extensions/skills §Skill Entries), every file by URI (for `resources/read`) and every directory level
 * (for `resources/directory/read`, extensions/skills §Directory Resources). A file or directory may belong to
 * several skills when skills nest (extensions/skills §Nested Skills); it is visible to a caller who may see
 * any of them.
 */
import { skillDigest } from '../../wire/skill-digest.js'
import { SkillDefinitionError, type SkillDefinition, type SkillFile } from './define.js'

/** A direct child of a directory resource. */
export interface DirectoryChild {
  readonly uri: string
  readonly name: string
  readonly mimeType: string
  readonly description?: string
  /** Whether the caller may see it: it belongs to one of these skills. */
  readonly owners: ReadonlySet<SkillDefinition>
}

interface Directory {
  readonly owners: Set<SkillDefinition>
  readonly children: Map<string, DirectoryChild & { owners: Set<SkillDefinition> }>
}

/** The MIME type of a directory resource (extensions/skills §Directory Resources). */
export const DIRECTORY_MIME_TYPE = 'inode/directory'

export class SkillSet {
  readonly skills: readonly SkillDefinition[]
  readonly #files = new Map<string, { file: SkillFile; owners: Set<SkillDefinition> }>()
  readonly #directories = new Map<string, Directory>()
  readonly #bySkillUri = new Map<string, SkillDefinition>()
  readonly #entries = new Map<SkillDefinition, Promise<Record<string, unknown>>>()

  constructor(skills: readonly SkillDefinition[]) {
    this.skills = skills
    for (const skill of skills) {
      if (this.#bySkillUri.has(skill.uri)) throw new SkillDefinitionError(`Duplicate skill ${skill.uri}`)
      this.#bySkillUri.set(skill.uri, skill)
      for (const file of skill.files) this.#addFile(skill, file)
    }
  }

  #addFile(skill: SkillDefinition, file: SkillFile): void {
    const known = this.#files.get(file.uri)
    if (known && !sameBytes(known.file.bytes, file.bytes))
      throw new SkillDefinitionError(`${file.uri} is served by two skills with different contents`)
    if (known) known.owners.add(skill)
    else this.#files.set(file.uri, { file, owners: new Set([skill]) })
    // Every level from the skill root down to the file's folder is a directory resource.
    const segments = file.uri.slice(skill.root.length + 1).split('/')
    let parent = skill.root
    for (const [index, segment] of segments.entries()) {
      const directory = this.#directory(parent, skill)
      const uri = `${parent}/${segment}`
      const isFile = index === segments.length - 1
      const child = directory.children.get(uri)
      if (child) child.owners.add(skill)
      else
        directory.children.set(uri, {
          uri,
          name: decodeURIComponent(segment),
          mimeType: isFile ? file.mimeType : DIRECTORY_MIME_TYPE,
          owners: new Set([skill]),
        })
      parent = uri
    }
  }

  #directory(uri: string, skill: SkillDefinition): Directory {
    let directory = this.#directories.get(uri)
    if (!directory) {
      directory = { owners: new Set(), children: new Map() }
      this.#directories.set(uri, directory)
    }
    directory.owners.add(skill)
    return directory
  }

  /** The skill whose `SKILL.md` has this URI. */
  skill(uri: string): SkillDefinition | undefined {
    return this.#bySkillUri.get(uri)
  }

  /** A served file and the skills it belongs to. */
  file(uri: string): { file: SkillFile; owners: ReadonlySet<SkillDefinition> } | undefined {
    return this.#files.get(uri)
  }

  /** A directory resource and its direct children, in URI order. */
  directory(
    uri: string,
  ): { owners: ReadonlySet<SkillDefinition>; children: readonly DirectoryChild[] } | undefined {
    const directory = this.#directories.get(uri)
    if (!directory) return undefined
    const children = [...directory.children.values()]
      .sort((a, b) => (a.uri < b.uri ? -1 : 1))
      .map((child) => {
        // A skill's SKILL.md is named and described from its front matter (extensions/skills §Resource Metadata).
        const skill = this.#bySkillUri.get(child.uri)
        return skill
          ? { ...child, name: skill.frontmatter.name, description: skill.frontmatter.description }
          : child
      })
    return { owners: directory.owners, children }
  }

  /** The skill's entry (uri, frontmatter, resources with digests), computed once. */
  entry(skill: SkillDefinition): Promise<Record<string, unknown>> {
    let entry = this.#entries.get(skill)
    if (!entry) {
      entry = Promise.all(skill.files.map((file) => skillDigest(file.bytes))).then((digests) => ({
        uri: skill.uri,
        frontmatter: skill.frontmatter,
        resources: skill.files.map((file, index) => ({
          uri: file.uri,
          digest: digests[index] as string,
          size: file.bytes.byteLength,
        })),
      }))
      this.#entries.set(skill, entry)
    }
    return entry
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false
  for (let index = 0; index < a.byteLength; index++) if (a[index] !== b[index]) return false
  return true
}
