/**
 * `defineServer`: builds the immutable server definition once (tool registry, compiled schemas, cached
 * `server/discover` and `tools/list` payloads, composed middleware). Requests then only read from it.
 */
import { cacheScopeProblem, implementationProblems } from './features/metadata.js'
import {
  type MethodSpec,
  consoleLogger,
  Dispatcher,
  type Reply,
  type ReplyTarget,
  type ServerLogger,
  type TransportCheck,
} from './protocol/dispatcher.js'
import { rawJson } from './protocol/encode.js'
import { warnOncePerProcess } from './protocol/warn-once.js'
import type { Exchange } from './protocol/exchange.js'
import type { AuthOutcome, HttpAuthenticator, RequestHandler, ServerCardSource } from './protocol/handler.js'
import type { MethodHandler, Middleware } from './protocol/middleware.js'
import type { RequestContext } from './protocol/context.js'
import { SchemaCompiler, type SchemaValidatorChoice } from './schema/json-schema.js'
import { finishForeignResult, toolMethods, type ToolCallOptions } from './features/tools/call.js'
import type { CompiledTool } from './features/tools/compile.js'
import type { ToolDefinition } from './features/tools/define.js'
import type { ErrorExposure } from './features/tools/errors.js'
import { ToolRegistry } from './features/tools/registry.js'
import { CALL_TOOL, SEARCH_TOOLS, ToolSearch, type ToolSearchOptions } from './features/tools/search.js'
import type { BearerAuth } from './security/auth/bearer.js'
import { createSecurity, type SecurityOptions } from './security/options.js'
import type { ToolWrapper } from './security/tool-guard.js'
import { Catalog } from './features/catalog.js'
import { completionMethods } from './features/completion.js'
import { compilePrompt, type CompiledPrompt, type PromptDefinition } from './features/prompts/define.js'
import { promptMethods } from './features/prompts/methods.js'
import {
  compileResource,
  compileTemplate,
  type CompiledResource,
  type CompiledTemplate,
  isResourceTemplateDefinition,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from './features/resources/define.js'
import { findTemplate, resourceMethods } from './features/resources/methods.js'
import { type ChangeBus, type ChangeEvent, InProcessChangeBus } from './features/subscriptions/bus.js'
import { ListenHub, type ListenOptions } from './features/subscriptions/listen.js'
import { RequestStateCodec, type RequestStateOptions } from './protocol/mrtr/state.js'
import { TaskEngine } from './features/tasks/engine.js'
import { MemoryTaskStore } from './features/tasks/memory-store.js'
import { taskMethods } from './features/tasks/methods.js'
import type { TaskStore } from './features/tasks/store.js'
import { TASKS_EXTENSION } from './features/tasks/wire.js'
import type { SkillDefinition } from './features/skills/define.js'
import { installSkills, skillManifestResources } from './features/skills/install.js'
import { compileServerCard, type ServerCardOptions } from './features/server-card.js'
import { checkToolViews, viewsOfTools } from './features/apps/tool-ui.js'
import { UI_EXTENSION } from './wire/apps.js'
import type { JsonRpcRequest } from './wire/jsonrpc.js'
import { processTelemetryDefault, type TelemetryOption } from './wire/telemetry.js'
import { ServerTelemetry } from './protocol/telemetry.js'
import { TaskTelemetry } from './protocol/task-telemetry.js'
import { LegacyEngine, type LegacyOptions } from './legacy/engine.js'
import { SessionCodec } from './legacy/session.js'
import { LEGACY_VERSIONS, legacyShape, legacyTool } from './legacy/versions.js'
import { META_SERVER_INFO, PROTOCOL_VERSION, SUPPORTED_VERSIONS } from './wire/meta.js'
import type { CacheScope, Icon, Implementation, RequestMeta, ServerCapabilities } from './wire/types.js'

/** Cache hints sent with cacheable results (`ttlMs`, `cacheScope`). */
export interface CacheHints {
  ttlMs?: number
  scope?: CacheScope
}

/**
 * A bundle of methods and the capabilities they imply (prompts, resources, subscriptions …).
 *
 * @internal Reached through a public type, but not exported from the package entries: it may change in any release.
 */
export interface Feature {
  readonly capabilities?: ServerCapabilities
  readonly methods: Readonly<Record<string, MethodSpec>>
}

/**
 * What a feature factory can read from the server being defined.
 *
 * @internal Reached through a public type, but not exported from the package entries: it may change in any release.
 */
export interface FeatureHost {
  readonly info: Implementation
  readonly tools: ToolRegistry
  readonly compiler: SchemaCompiler
  readonly logger: ServerLogger
  readonly cache: Required<CacheHints>
}

/** What one principal may keep in the task store unless `tasks` says otherwise. */
export const TASK_DEFAULTS = {
  maxLivePerPrincipal: 100,
  maxStoredPerPrincipal: 1000,
  maxStoredBytesPerPrincipal: 16 * 1024 * 1024,
} as const

/** The tasks extension (io.modelcontextprotocol/tasks): where tasks live and how many one principal may run. */
export interface TasksOptions {
  /** Default: in memory (lost on restart). `toolwire/sqlite` and `toolwire/redis` keep them. */
  store?: TaskStore
  /** Unfinished tasks per principal (default 100); more creations are refused with a protocol error. */
  maxLivePerPrincipal?: number
  /** Tasks one principal may have stored, finished ones included until they expire (default 1000). */
  maxStoredPerPrincipal?: number
  /**
   * Bytes one principal's stored tasks may take (default 16 MiB): arguments and answers while a task may
   * still run (they are dropped once it finishes), then results and errors.
   */
  maxStoredBytesPerPrincipal?: number
  /** How often a running task looks for a cancel that reached another instance (default 1 s). */
  watchIntervalMs?: number
}

/**
 * What `defineServer` takes: identity, definitions, and the bounds and policies of the server.
 *
 * @example
 * ```ts
 * const options: ServerOptions = {
 *   name: 'notes',
 *   version: '1.0.0',
 *   tools: [read, write],
 *   security: { maxConcurrentCalls: 16 },
 * }
 * const server = defineServer(options)
 * ```
 */
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
  /** Prompts (`definePrompt`); declares the `prompts` and `completions` capabilities. */
  prompts?: readonly PromptDefinition[]
  /** Resources and resource templates; declares the `resources` and `completions` capabilities. */
  resources?: readonly (ResourceDefinition | ResourceTemplateDefinition)[]
  /** Skills (`defineSkill`, `skillFromFolder`): the Skills extension, with `resources` (docs/skills.md). */
  skills?: readonly SkillDefinition[]
  /** Publishes a Server Card at `<endpoint>/server-card` on HTTP (docs/server-card.md). */
  serverCard?: ServerCardOptions
  /** Multi-round-trip `requestState` sealing: the shared HMAC secret and how long a retry may take. */
  requestState?: RequestStateOptions
  /** Where list changes and resource updates are published (default: in-process). */
  changes?: ChangeBus
  /** Long-running tools: enabled when a tool has `task`, or when this is given. */
  tasks?: TasksOptions
  /** Limits of `subscriptions/listen` streams. */
  listen?: ListenOptions
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
  /**
   * Tool search for servers with many tools (docs/tool-search.md): when a caller may see more than `minTools`
   * tools (default 30), `tools/list` answers the `pinned` tools plus `search_tools` and `call_tool`.
   */
  toolSearch?: true | ToolSearchOptions
  /** Wraps each tool handler call (timeouts, MRTR …). */
  wrapToolHandler?: ToolWrapper
  /** Include `_meta.serverInfo` in every result (default true, basic/index §_meta). */
  serverInfoInResults?: boolean
  /**
   * JSON Schema validator: ajv where code generation is allowed, else an interpreting validator
   * (Cloudflare Workers forbid `new Function`); set `'interpreted'` to force the latter (default 'auto').
   */
  jsonSchemaValidator?: SchemaValidatorChoice
  logger?: ServerLogger
  /**
   * Access control, rate limits, timeouts, output sanitising, input limits, secret redaction (see docs/security.md).
   */
  security?: SecurityOptions
  /**
   * 2025-era clients (2025-03-26 … 2025-11-25, `initialize` handshake) are served beside 2026-07-28 by
   * default; `false` serves 2026-07-28 only. Session ids are sealed with the `requestState` secret.
   */
  legacy?: LegacyOptions | false
  /**
   * OpenTelemetry spans and metrics per request (docs/observability.md): `true` uses the globally registered
   * providers, an object may pass its own. Needs the optional peer dependency `@opentelemetry/api`, which is
   * imported only when this is set. Unset, it follows the CLI's `--otel` (`toolwire serve --otel`); `false`
   * keeps it off even then.
   */
  telemetry?: TelemetryOption
}

/**
 * A server made by `defineServer`: serve it with `serveNode`, `serveStdio`, `createFetchHandler` or any adapter; change its tools, prompts and resources at runtime.
 *
 * @example
 * ```ts
 * const server = defineServer({ name: 'notes', version: '1.0.0', tools: [read] })
 * server.tools.add(write) // clients with a listen stream hear tools/list_changed
 * await serveNode(server, { port: 3000 })
 * ```
 */
export class Server implements RequestHandler {
  readonly info: Implementation
  readonly capabilities: ServerCapabilities
  readonly tools: ToolRegistry
  readonly prompts: Catalog<PromptDefinition, CompiledPrompt>
  readonly resources: Catalog<ResourceDefinition, CompiledResource>
  readonly resourceTemplates: Catalog<ResourceTemplateDefinition, CompiledTemplate>
  /** Publishing here reaches every open `subscriptions/listen` stream (tool/prompt/resource edits do it). */
  readonly changes: ChangeBus
  readonly logger: ServerLogger
  /** The JSON Schema validator compiling this server's schemas: `ajv`, or `interpreted` where code generation is forbidden. */
  readonly schemaValidator: 'ajv' | 'interpreted'
  readonly #hub: ListenHub
  /** Runs task-capable tool calls; undefined when the server offers no tasks. */
  readonly taskEngine: TaskEngine | undefined
  readonly supportedVersions: readonly string[] = SUPPORTED_VERSIONS
  /** Authentication the HTTP transports apply (from `security.auth`). */
  readonly auth: BearerAuth | HttpAuthenticator | undefined
  /** What the HTTP transports call to authenticate a request and serve the auth metadata. */
  readonly authenticator: HttpAuthenticator | undefined
  /** Deepest `params` nesting accepted (`security.maxDepth`); transports check raw messages against it. */
  readonly maxParamsDepth: number
  readonly #dispatcher: Dispatcher
  readonly #guardExchange: ((exchange: Exchange) => Exchange) | undefined
  /** Serves 2025-era clients; undefined with `legacy: false`. */
  readonly legacy: LegacyEngine | undefined
  /** Seals and opens legacy `Mcp-Session-Id` tokens. */
  readonly sessions: SessionCodec | undefined
  /** The Server Card the HTTP transports publish; undefined without `serverCard`. */
  readonly serverCard: ServerCardSource | undefined
  /** Tool search (`toolSearch`): its settings and how often its index was built; undefined when off. */
  readonly toolSearch: ToolSearch | undefined

  constructor(options: ServerOptions) {
    if (!options.name || !options.version) throw new TypeError('defineServer needs a name and a version')
    const problems = [
      ...implementationProblems(options),
      cacheScopeProblem(options.cache?.scope, 'cache.scope'),
      cacheScopeProblem(options.discoverCache?.scope, 'discoverCache.scope'),
    ].filter((problem) => problem !== undefined)
    if (problems.length > 0) throw new TypeError(`defineServer: ${problems.join('; ')}`)
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
    this.maxParamsDepth = security.maxDepth
    const telemetryOption = options.telemetry ?? processTelemetryDefault()
    const telemetry =
      telemetryOption &&
      new ServerTelemetry(
        telemetryOption,
        (error) =>
          this.logger.error('telemetry is off: @opentelemetry/api could not be loaded', {
            error: String(error),
          }),
        // Only names the server defines reach span names and metrics (docs/observability.md).
        (method, name) =>
          (method === 'tools/call' ? this.tools : this.prompts).get(name) !== undefined ||
          (method === 'tools/call' && search?.get(name) !== undefined),
      )
    const auth = security.auth
    // A bearer authenticator publishes metadata naming every tool's scopes, which only the server knows.
    const authenticator: HttpAuthenticator | undefined =
      auth && 'toolRefusal' in auth
        ? {
            authenticate: auth.authenticate,
            document: (method, path) => auth.document(method, path, this.tools.scopes()),
          }
        : auth
    this.authenticator = telemetry && authenticator ? countRefusals(authenticator, telemetry) : authenticator
    this.#guardExchange = security.guardExchange
    const serverInfo = options.serverInfoInResults === false ? undefined : info
    const cache = { ttlMs: options.cache?.ttlMs ?? 300_000, scope: options.cache?.scope ?? 'public' }
    if (!Number.isInteger(cache.ttlMs) || cache.ttlMs < 0)
      throw new TypeError('cache.ttlMs must be an integer >= 0')
    const compiler = new SchemaCompiler(
      options.jsonSchemaValidator === undefined ? {} : { validator: options.jsonSchemaValidator },
    )
    this.schemaValidator = compiler.validator
    const listOptions = {
      pageSize: options.pageSize ?? 100,
      ttlMs: cache.ttlMs,
      cacheScope: cache.scope,
      serverInfo,
    }
    const searchNames = options.toolSearch ? new Set([SEARCH_TOOLS, CALL_TOOL]) : new Set<string>()
    this.tools = new ToolRegistry(options.tools ?? [], compiler, listOptions, searchNames)
    const search = (this.toolSearch = options.toolSearch
      ? new ToolSearch(
          options.toolSearch,
          {
            registry: this.tools,
            compiler,
            list: listOptions,
            visible: security.toolVisibility,
            shape: (tool, ctx) => (ctx.meta.protocolVersion < PROTOCOL_VERSION ? legacyTool(tool) : tool),
          },
          this.tools.enabled().map((tool) => tool.name),
        )
      : undefined)
    const skills = options.skills ?? []
    // MCP Apps views a tool names by definition are served with the resources (docs/apps.md).
    const views = viewsOfTools(options.tools ?? []).filter((view) => !options.resources?.includes(view))
    const resourceDefs = [...(options.resources ?? []), ...views, ...skillManifestResources(skills)]
    this.prompts = new Catalog('prompts', options.prompts ?? [], compilePrompt, listOptions)
    this.resources = new Catalog(
      'resources',
      resourceDefs.filter((d): d is ResourceDefinition => !isResourceTemplateDefinition(d)),
      compileResource,
      listOptions,
    )
    this.resourceTemplates = new Catalog(
      'resourceTemplates',
      resourceDefs.filter(isResourceTemplateDefinition),
      compileTemplate,
      listOptions,
    )

    const methods = new Map<string, MethodSpec>()
    const capabilities: ServerCapabilities = { tools: { listChanged: true }, logging: {} }
    const dispatcherRef: { current?: Dispatcher } = {}
    const report = (what: string, error: unknown): string =>
      dispatcherRef.current?.reportInternal(what, error) ?? 'unknown'
    if (options.prompts) {
      capabilities.prompts = { listChanged: true }
      for (const [method, spec] of Object.entries(promptMethods(this.prompts, report)))
        methods.set(method, spec)
    }
    // Every ui:// view a tool names must be served (apps §Resource Discovery); using the extension declares it.
    const servesView = (uri: string): boolean =>
      this.resources.get(uri) !== undefined || findTemplate(this.resourceTemplates, uri) !== undefined
    if (checkToolViews(this.tools.enabled(), servesView))
      capabilities.extensions = { ...capabilities.extensions, [UI_EXTENSION]: {} }
    if (resourceDefs.length > 0 || options.resources || skills.length > 0) {
      capabilities.resources = { subscribe: true, listChanged: true }
      const set = { resources: this.resources, templates: this.resourceTemplates }
      for (const [method, spec] of Object.entries(resourceMethods(set, cache, report)))
        methods.set(method, spec)
    }
    if (skills.length > 0)
      installSkills(skills, methods, capabilities, {
        ...listOptions,
        authenticates: authenticator !== undefined,
      })
    if (options.prompts || capabilities.resources) {
      capabilities.completions = {}
      for (const [method, spec] of Object.entries(completionMethods(this.prompts, this.resourceTemplates)))
        methods.set(method, spec)
    }
    const codec = new RequestStateCodec(options.requestState, () =>
      warnOncePerProcess(
        this.logger,
        'request-state-secret',
        'requestState and legacy session ids are sealed with a random per-process secret: configure ' +
          'requestState.secret when several instances serve this server, or they will reject each other',
      ),
    )
    const offersTasks = options.tasks !== undefined || (options.tools ?? []).some((t) => t.config.task)
    const toolCall: { current?: MethodSpec | undefined; options?: ToolCallOptions } = {}
    const engine = offersTasks
      ? new TaskEngine({
          store: options.tasks?.store ?? new MemoryTaskStore(),
          limits: {
            maxLive: options.tasks?.maxLivePerPrincipal ?? TASK_DEFAULTS.maxLivePerPrincipal,
            maxStored: options.tasks?.maxStoredPerPrincipal ?? TASK_DEFAULTS.maxStoredPerPrincipal,
            maxStoredBytes:
              options.tasks?.maxStoredBytesPerPrincipal ?? TASK_DEFAULTS.maxStoredBytesPerPrincipal,
          },
          watchIntervalMs: options.tasks?.watchIntervalMs ?? 1000,
          codec,
          logger: this.logger,
          ...(telemetry && { telemetry: new TaskTelemetry(telemetry) }),
          call: async (ctx) => {
            if (!toolCall.current) throw new Error('tools/call is not ready')
            return (await toolCall.current.handler(ctx)) as Record<string, unknown>
          },
          finish: (tool, result) => {
            if (!toolCall.options) throw new Error('tools/call is not ready')
            return finishForeignResult(this.tools, toolCall.options, tool, result)
          },
        })
      : undefined
    this.taskEngine = engine
    const toolOptions: ToolCallOptions = {
      invalidArguments: options.invalidArguments ?? 'tool-error',
      errorExposure: options.errorExposure ?? 'safe',
      report,
      ...(security.toolVisibility && { visible: security.toolVisibility }),
      wrapHandler: security.wrapToolHandler,
      ...(engine && { tasks: engine }),
      ...(security.guardResult && { guardResult: security.guardResult }),
      ...(serverInfo && { serverInfo }),
      ...(!capabilities.resources && { embeddedResource: this.#warnEmbeddedResource() }),
      ...(search && { search }),
    }
    for (const [method, spec] of Object.entries(toolMethods(this.tools, toolOptions)))
      methods.set(method, spec)
    toolCall.current = methods.get('tools/call')
    toolCall.options = toolOptions
    if (engine) {
      capabilities.extensions = { ...capabilities.extensions, [TASKS_EXTENSION]: {} }
      for (const [method, spec] of Object.entries(taskMethods(engine))) methods.set(method, spec)
    }
    const host: FeatureHost = { info, tools: this.tools, compiler, logger: this.logger, cache }
    for (const entry of options.features ?? []) {
      const feature = typeof entry === 'function' ? entry(host) : entry
      Object.assign(capabilities, feature.capabilities)
      for (const [method, spec] of Object.entries(feature.methods)) methods.set(method, spec)
    }
    this.capabilities = capabilities

    const changes =
      options.changes ??
      new InProcessChangeBus((error) =>
        this.logger.error('change subscriber failed', { error: String(error) }),
      )
    this.changes = changes
    const publish = (event: ChangeEvent) => (): void => this.#publish(event)
    this.tools.onChange(publish({ type: 'tools/list_changed' }))
    this.prompts.onChange(publish({ type: 'prompts/list_changed' }))
    this.resources.onChange(publish({ type: 'resources/list_changed' }))
    this.resourceTemplates.onChange(publish({ type: 'resources/list_changed' }))
    this.#hub = new ListenHub(changes, capabilities, options.listen)
    // A feature may bring its own listen method; otherwise the built-in hub serves it.
    if (!methods.has('subscriptions/listen')) methods.set('subscriptions/listen', this.#hub.method())

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
    // The card repeats what server/discover says (discovery §Consistency with Runtime Behavior).
    this.serverCard =
      options.serverCard &&
      compileServerCard(
        info,
        options.serverCard,
        options.legacy === false ? SUPPORTED_VERSIONS : [...SUPPORTED_VERSIONS, ...LEGACY_VERSIONS],
        compiler,
      )
    methods.set('server/discover', { handler: () => discoverJson })

    const stateCodec = codec
    this.#dispatcher = new Dispatcher({
      methods,
      middleware: security.middleware,
      around: security.around,
      supportedVersions: SUPPORTED_VERSIONS,
      serverInfo,
      logger: this.logger,
      ...(security.redact && { redact: security.redact }),
      requestState: stateCodec,
      ...(telemetry && { telemetry }),
    })
    dispatcherRef.current = this.#dispatcher
    if (options.legacy !== false) {
      const legacy = options.legacy ?? {}
      const ttl = legacy.sessionTtlMs ?? 86_400_000
      if (!(ttl > 0)) throw new TypeError('legacy.sessionTtlMs must be positive')
      this.sessions = new SessionCodec(
        stateCodec,
        ttl,
        legacy.maxSessionCacheBytes === undefined ? {} : { maxBytes: legacy.maxSessionCacheBytes },
      )
      this.legacy = new LegacyEngine(
        {
          info,
          onError: (what, error) => this.logger.error(`${what} failed`, { error: String(error) }),
          ...(telemetry && {
            onSessionEnd: (startedAt: number, version: string, transport: string) =>
              telemetry.sessionEnded(startedAt, version, transport),
          }),
          capabilities,
          instructions: options.instructions,
          changes,
          serves: (uri) =>
            this.resources.get(uri) !== undefined || findTemplate(this.resourceTemplates, uri) !== undefined,
          handleLegacy: (request, exchange, meta, own) => this.handleLegacy(request, exchange, meta, own),
        },
        legacy,
      )
    }
  }

  /** Answers one JSON-RPC request; null when it was cancelled. Transports call this. */
  handle(request: JsonRpcRequest, exchange: Exchange, check?: TransportCheck): Promise<Reply | null> {
    const guard = this.#guardExchange
    return this.#dispatcher.handle(request, guard ? guard(exchange) : exchange, check)
  }

  /** `handle`, with the reply returned at once when the request was answered synchronously. */
  answer(
    request: JsonRpcRequest,
    exchange: Exchange,
    check?: TransportCheck,
  ): Reply | null | Promise<Reply | null> {
    const guard = this.#guardExchange
    return this.#dispatcher.answer(request, guard ? guard(exchange) : exchange, check)
  }

  /** `answer`, with the reply handed to `target` rather than returned (see `RequestHandler.answerTo`). */
  answerTo(
    request: JsonRpcRequest,
    exchange: Exchange,
    check: TransportCheck | undefined,
    target: ReplyTarget,
  ): void {
    const guard = this.#guardExchange
    this.#dispatcher.answerTo(request, guard ? guard(exchange) : exchange, check, target)
  }

  /** Warns once per server, at the first embedded resource a tool returns while no resources are offered. */
  #warnEmbeddedResource(): (tool: CompiledTool) => void {
    let warned = false
    return (tool) => {
      if (warned) return
      warned = true
      this.logger.warn(
        `Tool ${tool.name} returned an embedded resource, but this server offers no resources: define ` +
          'the resources it embeds (defineResource) so clients can list and read them again ' +
          '(server/tools §Embedded Resources: such servers SHOULD offer the resources capability)',
      )
    }
  }

  /** Answers one request of a 2025-era session, in that revision's result shape. */
  handleLegacy(
    request: JsonRpcRequest,
    exchange: Exchange,
    meta: RequestMeta,
    own?: MethodHandler,
  ): Promise<Reply | null> {
    const guard = this.#guardExchange
    const guarded = guard ? guard(exchange) : exchange
    // Tools get the shapes a 2025-era schema allows (legacy/versions.ts).
    const shape = legacyShape(request.method)
    return this.#dispatcher.handleLegacy(request, guarded, meta, shape, own, exchange.sessionId)
  }

  methodSpec(method: string): MethodSpec | undefined {
    return this.#dispatcher.methodSpec(method)
  }

  /** Tells listen streams subscribed to `uri` that it changed (`notifications/resources/updated`). */
  resourceUpdated(uri: string): void {
    this.#publish({ type: 'resources/updated', uri })
  }

  /** Open `subscriptions/listen` streams on this instance. */
  get listeners(): number {
    return this.#hub.size
  }

  /**
   * Graceful shutdown: every listen stream receives its closing result (patterns/subscriptions §Graceful
   * Closure) and new ones close at once. Transports call this before they close their connections; calling it
   * again does nothing.
   */
  async close(): Promise<void> {
    this.#hub.close()
    this.legacy?.close()
    await this.taskEngine?.close()
  }

  /** A publish that fails (e.g. a remote bus is down) is logged, never thrown into the caller's edit. */
  #publish(event: ChangeEvent): void {
    Promise.resolve()
      .then(() => this.changes.publish(event))
      .catch((error: unknown) =>
        this.logger.error(`publishing ${event.type} failed`, { error: String(error) }),
      )
  }
}

/** An authenticator whose refusals are counted (`toolwire.guard: auth`). */
function countRefusals(authenticator: HttpAuthenticator, telemetry: ServerTelemetry): HttpAuthenticator {
  const count = (outcome: AuthOutcome): AuthOutcome => {
    if (!outcome.ok) telemetry.refusedAuth()
    return outcome
  }
  const counted: HttpAuthenticator = {
    authenticate: (request) => {
      const outcome = authenticator.authenticate(request)
      return outcome instanceof Promise ? outcome.then(count) : count(outcome)
    },
  }
  if (authenticator.document) counted.document = authenticator.document.bind(authenticator)
  return counted
}

/**
 * Defines a server: everything is validated and compiled here, so a bad tool fails at startup, not at call
 * time.
 *
 * @example
 * ```ts
 * const server = defineServer({ name: 'calc', version: '1.0.0', tools: [add] })
 * await serveNode(server, { port: 3000 }) // from 'toolwire/node'
 * ```
 */
export function defineServer(options: ServerOptions): Server {
  return new Server(options)
}
