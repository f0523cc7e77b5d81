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
import type { ServerCapabilities } from '../wire/types.js'
import { CatalogMirror } from './catalog-mirror.js'
import { mirrorPrompt, mirrorResource, mirrorTemplate, mirrorTool } from './mirror.js'
import type { Upstream } from './upstream.js'

export interface MirrorScope {
  /** Downstream name of an upstream tool or prompt (a gateway adds the member's namespace). */
  readonly rename?: (name: string) => string
  /** Whether an upstream tool or prompt (by its upstream name) is offered downstream. */
  readonly offers?: (name: string) => boolean
  /** Listed resources whose upstream updates are followed (default `DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS`). */
  readonly maxResourceSubscriptions?: number
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
  #subscription: { close(): Promise<void> } | undefined
  #client: Client | undefined
  /** The URIs the open (or opening) upstream stream follows, as JSON, and which stream is current. */
  #following = '[]'
  #generation = 0
  #warnedCap = false
  #stopped = false
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
  ) {
    this.#upstream = upstream
    this.#server = server
    this.#maxSubscriptions = scope.maxResourceSubscriptions ?? DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS
    this.#capabilities = capabilities
    this.#report = (what, error) =>
      server.logger.warn(
        `${label}: ${what}: ${stripControls(error instanceof Error ? error.message : String(error))}`,
      )
    this.#rename = scope.rename ?? ((name) => name)
    this.#offers = scope.offers ?? (() => true)
    this.#tools = new CatalogMirror(server.tools, this.#report)
    this.#prompts = new CatalogMirror(server.prompts, this.#report)
    this.#resources = new CatalogMirror(server.resources, this.#report)
    this.#templates = new CatalogMirror(server.resourceTemplates, this.#report)
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
        return { key: name, definition: mirrorTool(tool, upstream, name), source: tool }
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
    this.#follow()
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

  /** Reopens the upstream stream when the resources to follow changed. */
  #follow(): void {
    const client = this.#client
    if (!client || this.#stopped || JSON.stringify(this.#followed()) === this.#following) return
    const previous = this.#subscription
    this.#subscription = undefined
    void previous?.close().catch(() => undefined)
    this.#listen(client)
  }

  /**
   * Called with each new upstream connection: a restarted upstream may offer other things than before, so
   * it is listed again, and the change stream is opened on the new connection.
   */
  connected(client: Client): void {
    if (!this.#first) this.refresh().catch((error: unknown) => this.#report('listing after a restart', error))
    this.#first = false
    this.#client = client
    this.#listen(client)
  }

  #listen(client: Client): void {
    const capabilities = this.#capabilities
    const uris = this.#followed()
    this.#following = JSON.stringify(uris)
    const generation = ++this.#generation
    const filter = {
      ...(capabilities.tools?.listChanged && { toolsListChanged: true }),
      ...(capabilities.prompts?.listChanged && { promptsListChanged: true }),
      ...(capabilities.resources?.listChanged && { resourcesListChanged: true }),
      ...(uris.length > 0 && { resourceSubscriptions: uris }),
    }
    if (this.#stopped || Object.keys(filter).length === 0) return
    const refreshes: Record<string, () => Promise<void>> = {
      'notifications/tools/list_changed': () => this.#refreshTools(),
      'notifications/prompts/list_changed': () => this.#refreshPrompts(),
      'notifications/resources/list_changed': () => this.#refreshResources(),
    }
    client
      .subscribe(filter, {
        onNotification: (notification) => {
          const uri = notification.params?.uri
          if (notification.method === 'notifications/resources/updated' && typeof uri === 'string') {
            this.#server.resourceUpdated(uri)
            return
          }
          refreshes[notification.method]?.().catch((error: unknown) =>
            this.#report(`refreshing after ${notification.method}`, error),
          )
        },
      })
      .then(
        (opened) => {
          // A stream opened for an older list of resources, or after the stop, is closed at once.
          if (this.#stopped || generation !== this.#generation) void opened.close()
          else this.#subscription = opened
        },
        (error: unknown) => this.#report('listening for list changes', error),
      )
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await this.#subscription?.close().catch(() => undefined)
  }
}
