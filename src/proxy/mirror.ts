/**
 * Downstream definitions that mirror what an upstream server lists. Each handler forwards to the upstream
 * through the shared `Upstream`, so the downstream server's guards (auth, rate limits, argument and output
 * schema checks, output sanitising, size caps) run in front of it like in front of any local tool. What the
 * upstream describes is untrusted text shown to a model and often a terminal: control characters and escape
 * sequences are stripped from every descriptive string (server/tools §Security Considerations: clients
 * should treat tool descriptions as untrusted unless the server is trusted).
 */
import type { PromptInfo, ResourceInfo, ResourceTemplateInfo } from '../client/catalogs.js'
import { definePrompt, type PromptDefinition, type PromptMessage } from '../features/prompts/define.js'
import {
  defineResource,
  defineResourceTemplate,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from '../features/resources/define.js'
import { defineTool, type ToolDefinition } from '../features/tools/define.js'
import { toolResult } from '../features/tools/result.js'
import type { RequestContext } from '../protocol/context.js'
import { LOG_LEVELS, type LogLevel } from '../wire/meta.js'
import type { JsonRpcNotification } from '../wire/jsonrpc.js'
import type { CallToolResult, Icon, Tool } from '../wire/types.js'
import { baseProblems } from '../features/metadata.js'
import { metaKeyProblem } from '../wire/meta-keys.js'
import type { ReadResourceResult } from '../client/catalogs.js'
import { type CompletionRef, upstreamCompleter } from './completion-relay.js'
import { InputRelay } from './input-relay.js'
import type { Completer } from '../features/prompts/define.js'
import { compileUriTemplate } from '../features/resources/uri-template.js'
import type { Upstream } from './upstream.js'
import { recordToolOrigin } from './routed-listing.js'
import { answerWithTask, passesTasks, type TaskPassThrough } from './task-relay.js'
import { TaskHandle } from '../client/tasks.js'
import type { RelayedCallOptions } from '../client/client.js'

import { cleanStrings } from './clean.js'
export { cleanStrings }

/**
 * The upstream's icons the downstream may publish: an icon with an unsafe source (`http:`, `javascript:`,
 * `file:` …; basic §icons, Security considerations) is dropped on its own instead of costing the whole tool.
 */
function safeIcons(icons: unknown): Icon[] | undefined {
  if (!Array.isArray(icons)) return undefined
  const kept = icons.filter((icon: unknown) => baseProblems({ icons: [icon] }).length === 0) as Icon[]
  return kept.length > 0 ? kept : undefined
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, V>)

/** Upstream log messages of a call go to the downstream caller at the level it asked for. */
function forwardLog(ctx: RequestContext): (notification: JsonRpcNotification) => void {
  return (notification) => {
    if (notification.method !== 'notifications/message') return
    const params = notification.params ?? {}
    const level = LOG_LEVELS.includes(params.level as LogLevel) ? (params.level as LogLevel) : 'info'
    ctx.log[level](params.data, typeof params.logger === 'string' ? params.logger : undefined)
  }
}

/**
 * An upstream tool's `_meta` without the keys a definition may not publish (basic/index §_meta key names,
 * reserved prefixes): the upstream is untrusted, and one bad key must not keep its tool from the catalog.
 */
function validMeta(meta: Tool['_meta']): Tool['_meta'] {
  if (meta === undefined || meta === null || typeof meta !== 'object') return meta
  const keys = Object.keys(meta)
  if (keys.every((key) => metaKeyProblem(key) === undefined)) return meta
  return Object.fromEntries(
    keys.filter((key) => metaKeyProblem(key) === undefined).map((key) => [key, meta[key]]),
  )
}

/**
 * A downstream tool named `name` that calls the upstream tool `tool.name`. Progress is relayed only when the
 * downstream caller asked for it (patterns/progress), and the caller's cancellation (`ctx.signal`) cancels
 * the upstream request; an upstream `isError` result stays a tool error. With `tasks`, a caller that
 * declared the tasks extension gets the upstream's task answer as a task of its own (task-relay.ts).
 */
export function mirrorTool(
  tool: Tool,
  upstream: Upstream,
  name = tool.name,
  tasks?: TaskPassThrough,
): ToolDefinition {
  const clean = cleanStrings(tool)
  const definition = defineTool({
    name,
    ...optional('title', clean.title),
    ...optional('description', clean.description),
    ...optional('icons', safeIcons(clean.icons)),
    ...optional('annotations', clean.annotations),
    ...optional('_meta', validMeta(clean._meta)),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...optional('outputSchema', tool.outputSchema as Record<string, unknown> | undefined),
    handler: async (args, ctx) => {
      const wantsProgress = ctx.meta.progressToken !== undefined
      const asTask = passesTasks(tasks, ctx)
      const result = await new InputRelay(ctx).run((relay) =>
        upstream.useFor(ctx, (client) => {
          // Built field by field, not with spreads: this runs on every proxied call.
          const options: { -readonly [K in keyof RelayedCallOptions]: RelayedCallOptions[K] } = {
            cancellation: relay.cancellation,
            handlers: relay.handlers,
            onNotification: forwardLog(ctx),
          }
          if (wantsProgress) {
            options.onProgress = (p) => ctx.progress(p.progress, p.total, p.message)
            options.resetTimeoutOnProgress = true
          }
          if (asTask) options.task = true
          return client.callTool(tool.name, args as Record<string, unknown>, options)
        }),
      )
      if (result instanceof TaskHandle && tasks) return answerWithTask(tasks, ctx, name, result)
      return toolResult(result as CallToolResult)
    },
  })
  recordToolOrigin(definition.config.handler, upstream, tool.name)
  return definition
}

/**
 * A downstream prompt named `name` that gets the upstream prompt `prompt.name`; with `completes` (the
 * upstream declared `completions`) its arguments complete through the upstream.
 */
export function mirrorPrompt(
  prompt: PromptInfo,
  upstream: Upstream,
  name = prompt.name,
  completes = false,
): PromptDefinition {
  const clean = cleanStrings(prompt)
  const ref = { type: 'ref/prompt', name: prompt.name } as const
  return definePrompt({
    name,
    ...optional('title', clean.title),
    ...optional('description', clean.description),
    arguments: (clean.arguments ?? []).map((argument) => ({
      name: argument.name,
      ...optional('title', argument.title),
      ...optional('description', argument.description),
      ...optional('required', argument.required),
      ...(completes && { complete: upstreamCompleter(upstream, ref, argument.name) }),
    })),
    handler: async (args, ctx) => {
      const given: Record<string, string> = {}
      for (const [key, value] of Object.entries(args as Record<string, string | undefined>))
        if (typeof value === 'string') given[key] = value
      const result = await new InputRelay(ctx).run((relay) =>
        upstream.useFor(ctx, (client) =>
          client.getPrompt(prompt.name, given, { signal: relay.signal, handlers: relay.handlers }),
        ),
      )
      return {
        ...optional('description', result.description),
        messages: result.messages as PromptMessage[],
      }
    },
  })
}

/** Reads `uri` upstream, relaying what the upstream asks on the way. */
function readThrough(upstream: Upstream, uri: string, ctx: RequestContext): Promise<ReadResourceResult> {
  return new InputRelay(ctx).run((relay) =>
    upstream.useFor(ctx, (client) =>
      client.readResource(uri, { signal: relay.signal, handlers: relay.handlers }),
    ),
  )
}

export function mirrorResource(resource: ResourceInfo, upstream: Upstream): ResourceDefinition {
  const clean = cleanStrings(resource)
  return defineResource({
    uri: resource.uri,
    name: clean.name,
    ...optional('title', clean.title),
    ...optional('description', clean.description),
    ...optional('mimeType', clean.mimeType),
    ...optional('size', resource.size),
    read: async (ctx) => (await readThrough(upstream, resource.uri, ctx)).contents,
  })
}

export function mirrorTemplate(
  template: ResourceTemplateInfo,
  upstream: Upstream,
  completes = false,
): ResourceTemplateDefinition {
  const clean = cleanStrings(template)
  const ref = { type: 'ref/resource', uri: template.uriTemplate } as const
  const complete = completes ? completersOf(template.uriTemplate, upstream, ref) : undefined
  return defineResourceTemplate({
    uriTemplate: template.uriTemplate,
    name: clean.name,
    ...optional('title', clean.title),
    ...optional('description', clean.description),
    ...optional('mimeType', clean.mimeType),
    ...optional('complete', complete),
    read: async (uri, _variables, ctx) => (await readThrough(upstream, uri, ctx)).contents,
  })
}

/** One completer per variable of the template (none when it does not compile: the definition says why). */
function completersOf(
  uriTemplate: string,
  upstream: Upstream,
  ref: CompletionRef,
): Record<string, Completer> | undefined {
  let variables: readonly string[]
  try {
    variables = compileUriTemplate(uriTemplate).variables
  } catch {
    return undefined
  }
  return Object.fromEntries(
    variables.map((variable) => [variable, upstreamCompleter(upstream, ref, variable)]),
  )
}
