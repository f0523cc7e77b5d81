/**
 * Puts the Skills extension into a server being defined: the extension's methods, skill files in front of
 * the ordinary `resources/read`, and the capabilities (extensions/skills §Capability Negotiation: declaring the
 * extension commits to `skills/list` and `skills/get`, `directoryRead: true` to `resources/directory/read`, and
 * the extension requires the `resources` capability, since skill files are resources).
 */
import type { MethodSpec } from '../../protocol/dispatcher.js'
import { SKILLS_EXTENSION } from '../../wire/skill-digest.js'
import type { ServerCapabilities } from '../../wire/types.js'
import { SkillDefinitionError, type SkillDefinition } from './define.js'
import { skillMethods, type SkillMethodOptions } from './methods.js'
import { SkillSet } from './set.js'
import { defineResource, type ResourceDefinition } from '../resources/define.js'

/**
 * The `SKILL.md` of every skill anyone may see, as an ordinary resource for `resources/list`, named and
 * described from its front matter (extensions/skills §Resource Metadata). Skills with `scopes` or `visible`
 * stay out: `resources/list` is the same for every caller.
 */
export function skillManifestResources(skills: readonly SkillDefinition[]): ResourceDefinition[] {
  const uris = new Set<string>()
  for (const skill of skills) {
    if (uris.has(skill.uri)) throw new SkillDefinitionError(`Duplicate skill ${skill.uri}`)
    uris.add(skill.uri)
  }
  return skills
    .filter((skill) => skill.scopes.length === 0 && skill.visible === undefined)
    .map((skill) => {
      const bytes = skill.files[0]?.bytes ?? new Uint8Array(0)
      return defineResource({
        uri: skill.uri,
        name: skill.frontmatter.name,
        description: skill.frontmatter.description,
        mimeType: 'text/markdown',
        size: bytes.byteLength,
        read: () => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes),
      })
    })
}

export function installSkills(
  skills: readonly SkillDefinition[],
  methods: Map<string, MethodSpec>,
  capabilities: ServerCapabilities,
  options: SkillMethodOptions,
): void {
  const served = skillMethods(new SkillSet(skills), options)
  const read = methods.get('resources/read')
  if (!read) throw new Error('installSkills needs the resources methods installed first')
  methods.set('resources/read', {
    nameParam: 'uri',
    handler: (ctx) => served.readResource(ctx) ?? read.handler(ctx),
  })
  for (const [method, spec] of Object.entries(served.methods)) methods.set(method, spec)
  capabilities.extensions = { ...capabilities.extensions, [SKILLS_EXTENSION]: { directoryRead: true } }
}
