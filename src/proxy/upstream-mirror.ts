/**
 * Keeps a server's catalogs in step with one upstream: its tools, prompts, resources and resource templates
 * are listed at start, after a restart, and whenever the upstream announces a change (a listen stream on
 * 2026-07-28, the session's notifications on 2025-era servers); the catalogs then publish the downstream
 * change by themselves (patterns/subscriptions). In a gateway each member's tools and prompts are renamed
 * into its namespace and filtered by name.
 */
import type { Client } from '../client/client.js'
import type { Server } from '../server.js'
import { stripControls } from '../security/sanitize.js'
import type { JsonRpcNotification } from '../wire/jsonrpc.js'
import type { ServerCapabilities, SubscriptionFilter } from '../wire/types.js'
import { CatalogMirror } from './catalog-mirror.js'
import { ChangeStream, DEFAULT_MAX_LISTEN_RETRIES } from './change-stream.js'
import type { UpstreamSpec } from './link.js'
import { mirrorPrompt, mirrorResource, mirrorTemplate, mirrorTool } from './mirror.js'
import type { Upstream } from './upstream.js'
import type { TaskPassThrough } from './task-relay.js'

export interface MirrorScope {
  /** Downstream name of an upstream tool or prompt (a gateway adds the member's namespace). */
  readonly rename?: (name: string) => string
  /** Whether an upstream tool or prompt (by its upstream name) is offered downstream. */
  readonly offers?: (name: string) => boolean
  /** The upstream's name in the tasks it relays (a gateway member's; default ''). */
  readonly via?: string
}

/**
 * Listed resources a proxy follows upstream at most, by default: as many as a toolwire server lets one
 * 2025-era session subscribe to, so the upstream does not refuse the subscription.
 */
export const DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS = 64

/** Sees a downstream name before it is offered; throws to refuse it. */
export type NameCheck = (kind: 'tool' | 'prompt', name: string) => void

export class UpstreamMirror {
  readonly #upstream: Upstream
  readonly #capabilities: ServerCapabilities
  readonly #report: (what: string, error: unknown) => void
  readonly #rename: (name: string) => string
  readonly #offers: (name: string) => boolean
  readonly #tools
  readonly #prompts
  readonly #resources
  readonly #templates
  readonly #server: Server
  readonly #maxSubscriptions: number
  readonly #stream: ChangeStream
  readonly #tasks: TaskPassThrough | undefined
  #warnedCap = false
  #first = true

  get #completes(): boolean {
    return this.#capabilities.completions !== undefined
  }

  constructor(
    server: Server,
    upstream: Upstream,
    capabilities: ServerCapabilities,
    label: string,
    scope: MirrorScope = {},
    limits: Pick<UpstreamSpec, 'maxResourceSubscriptions' | 'maxListenRetries' | 'restart'> = {},
  ) {
    this.#upstream = upstream
    this.#server = server
    this.#maxSubscriptions = limits.maxResourceSubscriptions ?? DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS
    this.#capabilities = capabilities
    this.#report = (what, error) =>
      server.logger.warn(
        `${label}: ${what}: ${stripControls(error instanceof Error ? error.message : String(error))}`,
      )
    this.#rename = scope.rename ?? ((name) => name)
    this.#offers = scope.offers ?? (() => true)
    this.#tasks = server.taskEngine && { engine: server.taskEngine, via: scope.via ?? '' }
    this.#tools = new CatalogMirror(server.tools, this.#report)
    this.#prompts = new CatalogMirror(server.prompts, this.#report)
    this.#resources = new CatalogMirror(server.resources, this.#report)
    this.#templates = new CatalogMirror(server.resourceTemplates, this.#report)
    this.#stream = new ChangeStream(
      upstream,
      {
        filter: () => this.#filter(),
        onNotification: (notification) => this.#onNotification(notification),
        relist: () => this.#relist('listing after the change stream was reopened'),
        report: this.#report,
      },
      limits.restart ?? {},
      limits.maxListenRetries ?? DEFAULT_MAX_LISTEN_RETRIES,
    )
  }

  /** The downstream names this member would offer now (for collision checks at definition). */
  get toolNames(): readonly string[] {
    return this.#tools.keys()
  }

  get promptNames(): readonly string[] {
    return this.#prompts.keys()
  }

  /**
   * Lists everything again. `check` sees each tool and prompt name before anything is changed, and may
   * throw to refuse the lists (a gateway refuses collisions at definition).
   */
  async refresh(check?: NameCheck): Promise<void> {
    await Promise.all([this.#refreshTools(check), this.#refreshPrompts(check), this.#refreshResources()])
  }

  async #refreshTools(check?: NameCheck): Promise<void> {
    const upstream = this.#upstream
    const listed = await upstream.use((client) => client.listTools({ fresh: true }))
    const mirrored = listed.tools
      .filter((tool) => this.#offers(tool.name))
      .map((tool) => {
        const name = this.#rename(tool.name)
        check?.('tool', name)
        return { key: name, definition: mirrorTool(tool, upstream, name, this.#tasks), source: tool }
      })
    this.#tools.replaceAll(mirrored)
  }

  async #refreshPrompts(check?: NameCheck): Promise<void> {
    if (!this.#capabilities.prompts) return
    const upstream = this.#upstream
    const listed = await upstream.use((client) => client.listPrompts())
    const mirrored = listed
      .filter((prompt) => this.#offers(prompt.name))
      .map((prompt) => {
        const name = this.#rename(prompt.name)
        check?.('prompt', name)
        return {
          key: name,
          definition: mirrorPrompt(prompt, upstream, name, this.#completes),
          source: prompt,
        }
      })
    this.#prompts.replaceAll(mirrored)
  }

  async #refreshResources(): Promise<void> {
    if (!this.#capabilities.resources) return
    const upstream = this.#upstream
    const [resources, templates] = await Promise.all([
      upstream.use((client) => client.listResources()),
      upstream.use((client) => client.listResourceTemplates()),
    ])
    this.#resources.replaceAll(
      resources.map((r) => ({ key: r.uri, definition: mirrorResource(r, upstream), source: r })),
    )
    this.#templates.replaceAll(
      templates.map((t) => ({
        key: t.uriTemplate,
        definition: mirrorTemplate(t, upstream, this.#completes),
        source: t,
      })),
    )
    this.#stream.refollow()
  }

  /**
   * The listed resources whose updates the upstream stream follows: every one, up to the bound, when the
   * upstream supports subscriptions. Downstream, the server passes each update only to the streams and
   * sessions subscribed to that URI (patterns/subscriptions; 2025-11-25 server/resources §Subscriptions).
   */
  #followed(): string[] {
    if (this.#capabilities.resources?.subscribe !== true) return []
    const uris = this.#resources.keys()
    if (uris.length > this.#maxSubscriptions && !this.#warnedCap) {
      this.#warnedCap = true
      this.#report(
        'following resource updates',
        new Error(
          `the upstream lists ${uris.length} resources; only the first ${this.#maxSubscriptions} are followed (maxResourceSubscriptions)`,
        ),
      )
    }
    return uris.slice(0, this.#maxSubscriptions)
  }

  /**
   * Called with each new upstream connection: a restarted upstream may offer other things than before, so
   * it is listed again, and the change stream is opened on the new connection.
   */
  connected(client: Client): void {
    if (!this.#first) this.#relist('listing after a restart')
    this.#first = false
    this.#stream.connected(client)
  }

  #relist(what: string): void {
    this.refresh().catch((error: unknown) => this.#report(what, error))
  }

  /** What the change stream follows: list changes the upstream announces, and the followed resources. */
  #filter(): SubscriptionFilter | undefined {
    const capabilities = this.#capabilities
    const uris = this.#followed()
    const filter = {
      ...(capabilities.tools?.listChanged && { toolsListChanged: true }),
      ...(capabilities.prompts?.listChanged && { promptsListChanged: true }),
      ...(capabilities.resources?.listChanged && { resourcesListChanged: true }),
      ...(uris.length > 0 && { resourceSubscriptions: uris }),
    }
    return Object.keys(filter).length > 0 ? filter : undefined
  }

  #onNotification(notification: JsonRpcNotification): void {
    const uri = notification.params?.uri
    if (notification.method === 'notifications/resources/updated' && typeof uri === 'string') {
      this.#server.resourceUpdated(uri)
      return
    }
    const refresh = {
      'notifications/tools/list_changed': () => this.#refreshTools(),
      'notifications/prompts/list_changed': () => this.#refreshPrompts(),
      'notifications/resources/list_changed': () => this.#refreshResources(),
    }[notification.method]
    refresh?.().catch((error: unknown) => this.#report(`refreshing after ${notification.method}`, error))
  }

  async stop(): Promise<void> {
    await this.#stream.stop()
  }
}
