/**
 * The host side of an MCP Apps view, on a toolwire client: ext-apps' `AppBridge` (the postMessage JSON-RPC
 * peer of the view, apps §Communication Protocol) is given handlers that reach the server through the
 * client. toolwire writes no bridge of its own: the caller makes the `AppBridge` and its transport (a
 * `PostMessageTransport` to the sandboxed iframe), this module wires them.
 *
 * What it adds to a bare bridge: the view may call only tools whose visibility includes `"app"` (apps §Resource
 * Discovery, Visibility: "Host MUST reject tools/call requests from apps for tools that don't include
 * `app`"); the view can read and list the server's resources; the tool's input and result are delivered only
 * after the view said `initialized` (apps §Sandbox proxy: "MUST NOT send any request or notification to the
 * View before it receives an initialized notification"); size changes reach the page.
 */
import type { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge'
import { toolVisibility } from '../wire/apps.js'
import type { CallToolResult, Tool } from '../wire/types.js'
import type { AppView } from './app-view.js'
import type { Client, ToolCallOptions } from './client.js'

type BridgeCallResult = Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>
type BridgeReadResult = Awaited<ReturnType<NonNullable<AppBridge['onreadresource']>>>
type BridgeListResult = Awaited<ReturnType<NonNullable<AppBridge['onlistresources']>>>

/**
 * What `linkAppBridge` takes besides the bridge and the client.
 *
 * @example
 * ```ts
 * const options: AppBridgeLinkOptions = {
 *   view,
 *   onSizeChange: ({ height }) => { if (height !== undefined) iframe.style.height = `${height}px` },
 * }
 * ```
 */
export interface AppBridgeLinkOptions {
  /**
   * The view being shown (from `client.appFor`): its tool is the one `run` calls, and a sandbox proxy that
   * says it is ready is sent its HTML, CSP and permissions (apps §Sandbox proxy).
   */
  readonly view: AppView
  /** The view's size changed (`ui/notifications/size-changed`): resize its iframe. */
  readonly onSizeChange?: (size: { width?: number; height?: number }) => void
  /** The view asked to be closed (`ui/notifications/request-teardown`). */
  readonly onRequestTeardown?: () => void
  /** Options of every `tools/call` the view makes (timeouts …). */
  readonly callOptions?: Omit<ToolCallOptions, 'signal' | 'task'>
}

/**
 * A view's bridge linked to a client, made by `linkAppBridge`.
 *
 * @example
 * ```ts
 * const link = linkAppBridge(bridge, client, { view })
 * await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!))
 * const result = await link.run({ city: 'Lisbon' }) // input, tools/call, result: the view shows it
 * ```
 */
export interface AppBridgeLink {
  /** Settles when the view has sent `ui/notifications/initialized`. */
  readonly initialized: Promise<void>
  /** Sends the tool's arguments (`ui/notifications/tool-input`), once the view is initialized. */
  sendToolInput(args: Record<string, unknown>): Promise<void>
  /** Sends the tool's result (`ui/notifications/tool-result`), once the view is initialized. */
  sendToolResult(result: CallToolResult): Promise<void>
  /**
   * Calls the view's tool through the client and shows the call to the view: input, then the result; a call
   * that fails sends `ui/notifications/tool-cancelled` with the reason and rethrows.
   */
  run(args: Record<string, unknown>, options?: ToolCallOptions): Promise<CallToolResult>
  /** Tells the view it is going (`ui/resource-teardown`), waits for its answer, then closes the bridge. */
  close(reason?: string): Promise<void>
}

/** The standard MCP result the view receives: the 2026-07-28 `resultType` is no part of it. */
function forView(result: CallToolResult): CallToolResult {
  const { resultType: _resultType, ...rest } = result as CallToolResult & { resultType?: unknown }
  return rest
}

/**
 * Links an ext-apps `AppBridge` made with no SDK client (`new AppBridge(null, hostInfo, hostCapabilities)`)
 * to a toolwire client: the view's `tools/call` goes to the server (only tools visible to apps),
 * `resources/read` and `resources/list` too; size changes and teardown requests reach the page. Call it
 * before `bridge.connect(transport)`.
 *
 * @example
 * ```ts
 * import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge'
 * import { connect } from 'toolwire/client'
 * import { linkAppBridge } from 'toolwire/apps'
 *
 * const client = connect({ url: 'http://127.0.0.1:3000/mcp' }, { apps: true })
 * const view = await client.appFor('roll_dice')
 * if (view) {
 *   const bridge = new AppBridge(null, { name: 'my-host', version: '1.0.0' }, { serverTools: {}, serverResources: {} })
 *   const link = linkAppBridge(bridge, client, { view, onSizeChange: ({ height }) => resize(height) })
 *   await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!))
 *   await link.run({ sides: 6 })
 * }
 * ```
 */
export function linkAppBridge(
  bridge: AppBridge,
  client: Client,
  options: AppBridgeLinkOptions,
): AppBridgeLink {
  const { view } = options
  let markInitialized: () => void = () => {}
  const initialized = new Promise<void>((resolve) => (markInitialized = resolve))
  bridge.oninitialized = () => markInitialized()

  bridge.oncalltool = async (params, extra) => {
    const name = params.name
    let tool: Tool | undefined = client.tool(name)
    if (tool === undefined)
      tool = (await client.listTools({ fresh: true })).tools.find((t) => t.name === name)
    // An unknown tool and one the view may not call get the same answer: the view learns nothing more.
    if (tool === undefined || !toolVisibility(tool._meta).includes('app'))
      throw new Error(`Tool ${name} is not available to this app`)
    const result = await client.callTool(name, params.arguments ?? {}, {
      ...options.callOptions,
      signal: extra.mcpReq.signal,
    })
    return forView(result) as unknown as BridgeCallResult
  }
  bridge.onreadresource = async (params, extra) =>
    (await client.readResource(params.uri, { signal: extra.mcpReq.signal })) as unknown as BridgeReadResult
  bridge.onlistresources = async (_params, extra) =>
    ({
      resources: await client.listResources({ signal: extra.mcpReq.signal }),
    }) as unknown as BridgeListResult
  if (options.onSizeChange) {
    const onSizeChange = options.onSizeChange
    bridge.onsizechange = ({ width, height }) =>
      onSizeChange({ ...(width !== undefined && { width }), ...(height !== undefined && { height }) })
  }
  if (options.onRequestTeardown) bridge.onrequestteardown = options.onRequestTeardown
  // A web host loads the view through a sandbox proxy on another origin (apps §Sandbox proxy): once the
  // proxy is ready it gets the HTML and the sandbox policy to apply.
  bridge.onsandboxready = () => {
    void bridge.sendSandboxResourceReady({
      html: view.html,
      ...(view.meta.csp && { csp: view.meta.csp }),
      ...(view.meta.permissions && { permissions: view.meta.permissions }),
    })
  }

  const sendToolInput = async (args: Record<string, unknown>): Promise<void> => {
    await initialized
    await bridge.sendToolInput({ arguments: args })
  }
  const sendToolResult = async (result: CallToolResult): Promise<void> => {
    await initialized
    await bridge.sendToolResult(forView(result) as unknown as Parameters<AppBridge['sendToolResult']>[0])
  }
  return {
    initialized,
    sendToolInput,
    sendToolResult,
    async run(args, callOptions = {}) {
      await sendToolInput(args)
      let result: CallToolResult
      try {
        result = await client.callTool(view.tool.name, args, callOptions)
      } catch (error) {
        // The view must hear that no result is coming (apps §Notifications (Host → View), tool-cancelled).
        await bridge.sendToolCancelled({ reason: error instanceof Error ? error.message : String(error) })
        throw error
      }
      await sendToolResult(result)
      return result
    },
    async close(reason = 'closed by the host') {
      try {
        await bridge.teardownResource({ reason })
      } finally {
        await bridge.close()
      }
    },
  }
}
