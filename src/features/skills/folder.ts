/**
 * toolwire/skills: skills read from folders on disk (Node, Bun, Deno). A folder holds `SKILL.md` and the
 * skill's other files (Agent Skills: "a skill is a directory"). Everything is read and checked once, when the
 * skill is defined: a missing or malformed front matter, a name that is not the folder's, a path or symbolic
 * link leading outside the folder, a special file, or a file over the limits is refused there. Dotfiles and
 * dot-folders (`.env`, `.git/`) are left out unless listed: a folder on disk often holds secrets and tool state
 * beside the skill, and every file read would be served to any caller who can see the skill.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { basename, join, relative, sep } from 'node:path'
import { parseFrontmatter } from '../../wire/skill-frontmatter.js'
import {
  defineSkill,
  SKILL_LIMITS,
  SkillDefinitionError,
  type SkillConfig,
  type SkillDefinition,
} from './define.js'

export { defineSkill, SKILL_LIMITS, SkillDefinitionError }
export type { SkillConfig, SkillDefinition, SkillLimits } from './define.js'

/**
 * What `skillFromFolder` takes besides the folder: everything `defineSkill` does but the contents, and the
 * dotfiles to serve.
 *
 * @example
 * ```ts
 * const options: SkillFolderOptions = { includeDotfiles: ['.well-known/skill.json'], scopes: ['docs'] }
 * ```
 */
export interface SkillFolderOptions extends Omit<SkillConfig, 'skillMd' | 'files'> {
  /**
   * Paths relative to the folder, `/`-separated, of files and folders whose name starts with `.` that are
   * served anyway (e.g. `.well-known`, `templates/.editorconfig`). Any other file or folder whose name starts
   * with `.` is skipped, with everything under it; a listed folder's own dot-entries need listing too. A path
   * listed that the folder does not hold is an error.
   */
  readonly includeDotfiles?: readonly string[]
}

/**
 * A skill from a folder holding `SKILL.md` and its files; throws `SkillDefinitionError` when the folder breaks
 * a rule. Symbolic links are followed only to files inside the folder.
 *
 * @example
 * ```ts
 * import { skillFromFolder } from 'toolwire/skills'
 *
 * const server = defineServer({
 *   name: 'docs',
 *   version: '1.0.0',
 *   skills: [skillFromFolder('./skills/pdf-processing')],
 * })
 * ```
 */
export function skillFromFolder(folder: string, options: SkillFolderOptions = {}): SkillDefinition {
  const { includeDotfiles = [], ...config } = options
  const limits = { ...SKILL_LIMITS, ...config.limits }
  const listed = new Set(includeDotfiles)
  const found = new Set<string>()
  let root: string
  try {
    root = realpathSync(folder)
    if (!statSync(root).isDirectory()) throw new Error('not a directory')
  } catch (error) {
    throw new SkillDefinitionError(`Invalid skill folder ${folder}: ${String(error)}`)
  }
  const fail = (problem: string): never => {
    throw new SkillDefinitionError(`Invalid skill folder ${folder}: ${problem}`)
  }
  const files: Record<string, Uint8Array> = {}
  let count = 0
  let total = 0
  const walk = (directory: string): void => {
    for (const dirent of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, dirent.name)
      const relativePath = relative(root, path).split(sep).join('/')
      if (listed.has(relativePath)) found.add(relativePath)
      else if (dirent.name.startsWith('.')) continue
      let target = path
      if (dirent.isSymbolicLink()) {
        try {
          target = realpathSync(path)
        } catch {
          fail(`${relativePath} is a broken symbolic link`)
        }
        if (!target.startsWith(root + sep))
          fail(`${relativePath} is a symbolic link leading outside the folder`)
        // A linked folder could loop back on itself; skills are plain trees.
        if (!lstatSync(target).isFile())
          fail(`${relativePath} is a symbolic link to something other than a file`)
      } else if (dirent.isDirectory()) {
        walk(path)
        continue
      } else if (!dirent.isFile()) {
        fail(`${relativePath} is not a regular file`)
      }
      if (++count > limits.maxFiles) fail(`more than maxFiles ${limits.maxFiles} files`)
      // The size is checked before reading, so an oversized file is never loaded into memory.
      const size = statSync(target).size
      if (size > limits.maxFileBytes)
        fail(`${relativePath} is ${size} bytes, over maxFileBytes ${limits.maxFileBytes}`)
      total += size
      if (total > limits.maxTotalBytes)
        fail(`the files total more than maxTotalBytes ${limits.maxTotalBytes}`)
      files[relativePath] = new Uint8Array(readFileSync(target))
    }
  }
  walk(root)
  const missing = [...listed].filter((path) => !found.has(path))
  if (missing.length > 0)
    fail(
      `includeDotfiles lists ${missing.map((path) => JSON.stringify(path)).join(', ')}, not in the folder (or under a dot-folder not listed)`,
    )
  const skillMd = files['SKILL.md']
  if (!skillMd) return fail('there is no SKILL.md at its root')
  delete files['SKILL.md']
  // Agent Skills §name field: the name must match the parent directory's name.
  const parsed = parseFrontmatter(new TextDecoder().decode(skillMd))
  if (parsed.ok && parsed.frontmatter.name !== basename(root))
    fail(`the name ${JSON.stringify(parsed.frontmatter.name)} is not the folder's name ${basename(root)}`)
  return defineSkill({ ...config, skillMd, files })
}
