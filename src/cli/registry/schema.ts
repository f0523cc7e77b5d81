/**
 * The MCP Registry's published `server.json` schema, vendored unchanged in `src/cli/registry-schema/` (its
 * README names the repository, file and commit) and copied to `dist/registry-schema/` by the build. The CLI's
 * code may sit in `dist/cli/`, in a shared chunk, or in `src/` under the tests, so the folder is looked for
 * upwards from this module. It is checked with toolwire's own JSON Schema engine (draft-07, as it declares).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type CompiledSchema, SchemaCompiler } from '../../schema/json-schema.js'

export const REGISTRY_SCHEMA_FOLDER = 'registry-schema'
const FILE = 'server.schema.json'

/** The path of the vendored schema file. */
export function registrySchemaPath(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, REGISTRY_SCHEMA_FOLDER), join(dir, 'dist', REGISTRY_SCHEMA_FOLDER)]) {
      if (existsSync(join(candidate, FILE))) return join(candidate, FILE)
    }
    if (dirname(dir) === dir)
      throw new Error(
        `the registry's schema is missing (no ${REGISTRY_SCHEMA_FOLDER}/${FILE}): run npm run build`,
      )
  }
}

export interface RegistrySchema {
  /** Its `$id`, which a `server.json` names as its `$schema`. */
  readonly id: string
  readonly validator: CompiledSchema
}

/** Loads and compiles the vendored schema. */
export function loadRegistrySchema(path = registrySchemaPath()): RegistrySchema {
  const schema = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  const id = schema.$id
  if (typeof id !== 'string') throw new Error(`${path} has no $id`)
  return { id, validator: new SchemaCompiler().compile(schema, "the MCP Registry's server.json schema") }
}
