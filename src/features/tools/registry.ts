/**
 * The server's tools, in definition order: a catalog of compiled tools. Tools can be added, removed, enabled
 * and disabled at runtime; each change drops the cached list pages and tells listeners (the server publishes
 * `notifications/tools/list_changed` from there).
 */
import type { SchemaCompiler } from '../../schema/json-schema.js'
import type { Tool } from '../../wire/types.js'
import { Catalog, type ListOptions } from '../catalog.js'
import { type CompiledTool, compileTool, ToolDefinitionError } from './compile.js'
import type { ToolDefinition } from './define.js'

export type { ListOptions } from '../catalog.js'

/** @internal Reached through a public type, but not exported from the package entries: it may change in any release. */
export class ToolRegistry extends Catalog<ToolDefinition, CompiledTool> {
  /** `reserved`: names the server keeps for itself (tool search), refused at definition and at `add`. */
  constructor(
    definitions: readonly ToolDefinition[],
    compiler: SchemaCompiler,
    options: ListOptions,
    reserved: ReadonlySet<string> = new Set(),
  ) {
    const compile = (definition: ToolDefinition): CompiledTool => {
      const name = definition.config.name
      if (reserved.has(name))
        throw new ToolDefinitionError(
          `Tool name ${name} is reserved by toolSearch: rename the tool or turn toolSearch off`,
        )
      return compileTool(definition, compiler)
    }
    super('tools', definitions, compile, options, {
      duplicate: (name) => new ToolDefinitionError(`Duplicate tool name ${name}`),
      unknown: (name) => new ToolDefinitionError(`Unknown tool ${name}`),
    })
  }

  /** The enabled tools' wire definitions, in order. */
  tools(): Tool[] {
    return this.enabled().map((tool) => tool.wire)
  }

  /** Every scope some enabled tool declares (for `scopes_supported` in the resource metadata). */
  scopes(): Set<string> {
    return new Set(this.enabled().flatMap((tool) => tool.scopes))
  }
}
