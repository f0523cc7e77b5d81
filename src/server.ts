/**
 * `defineServer`: builds the immutable server definition once (tool registry, compiled schemas, cached
 * `server/discover` and `tools/list` payloads, composed middleware). Requests then only read from it.
 */
import {
  type MethodSpec,
  consoleLogger,
  Dispatcher,
  type Reply,
  type ServerLogger,
  type TransportCheck,
} from './protocol/dispatcher.js'
import { rawJson } from './protocol/encode.js'
import type { Exchange } from './protocol/exchange.js'
import type { Middleware } from './protocol/middleware.js'
import type { RequestContext } from './protocol/context.js'
import { SchemaCompiler } from './schema/json-schema.js'
import { toolMethods, type ToolCallOptions } from './features/tools/call.js'
import type { CompiledTool } from './features/tools/compile.js'
import type { ToolDefinition } from './features/tools/define.js'
import type { ErrorExposure } from './features/tools/errors.js'
import { ToolRegistry } from './features/tools/registry.js'
import type { BearerAuth } from './security/auth/bearer.js'
import { createSecurity, type SecurityOptions } from './security/options.js'
import type { JsonRpcRequest } from './wire/jsonrpc.js'
import { META_SERVER_INFO, SUPPORTED_VERSIONS } from './wire/meta.js'
import type { CacheScope, Icon, Implementation, ServerCapabilities } from './wire/types.js'

/** Cache hints sent with cacheable results (`ttlMs`, `cacheScope`). */
export interface CacheHints {
  ttlMs?: number
  scope?: CacheScope
}

/** A bundle of methods and the capabilities they imply (prompts, resources, subscriptions …). */
export interface Feature {
  readonly capabilities?: ServerCapabilities
  readonly methods: Readonly<Record<string, MethodSpec>>
}

/** What a feature factory can read from the server being defined. */
export interface FeatureHost {
  readonly info: Implementation
  readonly tools: ToolRegistry
  readonly compiler: SchemaCompiler
  readonly logger: ServerLogger
  readonly cache: Required<CacheHints>
}

export interface ServerOptions {
  name: string
  version: string
  title?: string
  description?: string
  websiteUrl?: string
  icons?: Icon[]
  /** Guidance for the model, returned by `server/discover`. */
  instructions?: string
  tools?: readonly ToolDefinition[]
  /** Tools per `tools/list` page (default 100). */
  pageSize?: number
  /** Cache hints for list results (default 5 minutes, public). */
  cache?: CacheHints
  /** Cache hints for `server/discover` (default 1 hour, public). */
  discoverCache?: CacheHints
  /** Invalid tool arguments: `isError` result (default) or JSON-RPC -32602. */
  invalidArguments?: 'tool-error' | 'protocol-error'
  /** How much of an unexpected tool error reaches the caller (default 'safe'). */
  errorExposure?: ErrorExposure
  /** Middleware around every method, outermost first. */
  middleware?: readonly Middleware[]
  /** More methods: prompts, resources, subscriptions … (a factory sees the server being built). */
  features?: readonly (Feature | ((host: FeatureHost) => Feature))[]
  /** Which tools a request may see and call (e.g. by scope); lists become `cacheScope: "private"`. */
  toolVisibility?: (tool: CompiledTool, ctx: RequestContext) => boolean
  /** Wraps each tool handler call (timeouts, MRTR …). */
  wrapToolHandler?: ToolCallOptions['wrapHandler']
  /** Include `_meta.serverInfo` in every result (default true, META-06). */
  serverInfoInResults?: boolean
  logger?: ServerLogger
  /** Access control, rate limits, timeouts, output sanitising, input limits, secret redaction (see README §Security). */
  security?: SecurityOptions
}

export class Server {
  readonly info: Implementation
  readonly capabilities: ServerCapabilities
  readonly tools: ToolRegistry
  readonly logger: ServerLogger
  readonly supportedVersions: readonly string[] = SUPPORTED_VERSIONS
  /** Bearer-token authentication the HTTP transports apply (from `security.auth`). */
  readonly auth: BearerAuth | undefined
  readonly #dispatcher: Dispatcher
  readonly #redactBody: ((body: string) => string) | undefined
  readonly #guardExchange: ((exchange: Exchange) => Exchange) | undefined

  constructor(options: ServerOptions) {
    if (!options.name || !options.version) throw new TypeError('defineServer needs a name and a version')
    const info: Implementation = { name: options.name, version: options.version }
    if (options.title !== undefined) info.title = options.title
    if (options.description !== undefined) info.description = options.description
    if (options.websiteUrl !== undefined) info.websiteUrl = options.websiteUrl
    if (options.icons !== undefined) info.icons = options.icons
    this.info = info
    const security = createSecurity(options.security ?? {}, {
      logger: options.logger ?? consoleLogger,
      middleware: options.middleware,
      toolVisibility: options.toolVisibility,
      wrapToolHandler: options.wrapToolHandler,
    })
    this.logger = security.logger
    this.auth = security.auth
    this.#redactBody = security.redactBody
    this.#guardExchange = security.guardExchange
    const serverInfo = options.serverInfoInResults === false ? undefined : info
    const cache = { ttlMs: options.cache?.ttlMs ?? 300_000, scope: options.cache?.scope ?? 'public' }
    if (!Number.isInteger(cache.ttlMs) || cache.ttlMs < 0)
      throw new TypeError('cache.ttlMs must be an integer >= 0')
    const compiler = new SchemaCompiler()
    this.tools = new ToolRegistry(options.tools ?? [], compiler, {
      pageSize: options.pageSize ?? 100,
      ttlMs: cache.ttlMs,
      cacheScope: cache.scope,
      serverInfo,
    })

    const methods = new Map<string, MethodSpec>()
    const capabilities: ServerCapabilities = { tools: { listChanged: true }, logging: {} }
    const dispatcherRef: { current?: Dispatcher } = {}
    const toolOptions: ToolCallOptions = {
      invalidArguments: options.invalidArguments ?? 'tool-error',
      errorExposure: options.errorExposure ?? 'safe',
      report: (what, error) => dispatcherRef.current?.reportInternal(what, error) ?? 'unknown',
      ...(security.toolVisibility && { visible: security.toolVisibility }),
      wrapHandler: security.wrapToolHandler,
    }
    for (const [method, spec] of Object.entries(toolMethods(this.tools, toolOptions)))
      methods.set(method, spec)
    const host: FeatureHost = { info, tools: this.tools, compiler, logger: this.logger, cache }
    for (const entry of options.features ?? []) {
      const feature = typeof entry === 'function' ? entry(host) : entry
      Object.assign(capabilities, feature.capabilities)
      for (const [method, spec] of Object.entries(feature.methods)) methods.set(method, spec)
    }
    this.capabilities = capabilities

    const discover: Record<string, unknown> = {
      resultType: 'complete',
      supportedVersions: [...SUPPORTED_VERSIONS],
      capabilities,
      ttlMs: options.discoverCache?.ttlMs ?? 3_600_000,
      cacheScope: options.discoverCache?.scope ?? 'public',
    }
    if (options.instructions !== undefined) discover.instructions = options.instructions
    if (serverInfo) discover._meta = { [META_SERVER_INFO]: serverInfo }
    const discoverJson = rawJson(JSON.stringify(discover))
    methods.set('server/discover', { handler: () => discoverJson })

    this.#dispatcher = new Dispatcher({
      methods,
      middleware: security.middleware,
      supportedVersions: SUPPORTED_VERSIONS,
      serverInfo,
      logger: this.logger,
    })
    dispatcherRef.current = this.#dispatcher
  }

  /** Answers one JSON-RPC request; null when it was cancelled. Transports call this. */
  handle(request: JsonRpcRequest, exchange: Exchange, check?: TransportCheck): Promise<Reply | null> {
    const guard = this.#guardExchange
    const handled = this.#dispatcher.handle(request, guard ? guard(exchange) : exchange, check)
    const redact = this.#redactBody
    return redact ? handled.then((reply) => reply && { ...reply, body: redact(reply.body) }) : handled
  }

  methodSpec(method: string): MethodSpec | undefined {
    return this.#dispatcher.methodSpec(method)
  }
}

/** Defines a server: everything is validated and compiled here, so a bad tool fails at startup, not at call time. */
export function defineServer(options: ServerOptions): Server {
  return new Server(options)
}
