/**
 * What the page needs to render a tool's MCP Apps view, and the one way a view reaches the server. The view's
 * HTML and metadata are read and checked by toolwire's client (`appFor`: `ui://` URI, view MIME type, size,
 * CSP entries that are plain origins); the page renders it through the sandbox proxy on the second listener.
 * A view's `tools/call` goes through the session like the page's own calls (logged, cancellable, questions from
 * the server asked on the page), and only for tools the view may call: apps §Resource Discovery, Visibility:
 * "Host MUST reject tools/call requests from apps for tools that don't include `app`".
 */
import { toolVisibility } from '../../wire/apps.js'
import type { Tool } from '../../wire/types.js'
import type { InspectorSession } from './session.js'

/** A view as the page receives it: everything the sandbox proxy and the bridge need, as JSON. */
export interface PageAppView {
  readonly uri: string
  readonly html: string
  /** The checked `_meta.ui` (csp, permissions, prefersBorder …). */
  readonly meta: Record<string, unknown>
  /** Where the sandbox proxy is served: an origin other than the page's. */
  readonly sandboxOrigin: string
}

/** The tool's view, or `{ view: null }` when it has none. */
export async function viewFor(
  session: InspectorSession,
  tool: string,
  sandboxOrigin: string,
): Promise<{ view: PageAppView | null }> {
  const view = await session.client.appFor(tool)
  if (!view) return { view: null }
  return { view: { uri: view.uri, html: view.html, meta: { ...view.meta }, sandboxOrigin } }
}

/** The listed tool, looked up again when the cached list does not have it (it may have changed since). */
async function listedTool(session: InspectorSession, name: string): Promise<Tool | undefined> {
  const client = session.client
  return (
    client.tool(name) ?? (await client.listTools({ fresh: true })).tools.find((tool) => tool.name === name)
  )
}

/**
 * A `tools/call` a view made. An unknown tool and one the view may not call get the same answer, so the view
 * learns nothing about tools hidden from it.
 */
export async function callFromView(
  session: InspectorSession,
  callId: string,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const tool = await listedTool(session, name)
  if (tool === undefined || !toolVisibility(tool._meta).includes('app'))
    return { error: `Tool ${name} is not available to this app` }
  return session.call(callId, name, args)
}
