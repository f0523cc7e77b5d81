/**
 * What this page does, as a host, for the requests a view sends (apps §Communication Protocol). Everything that
 * reaches the server goes through the local API, as the page's own actions do: `tools/call` (only tools visible
 * to apps, checked by the CLI), `resources/read` and `resources/list`. The rest stays on the page: size
 * changes resize the frame (bounded by the caller), `ui/open-link` shows the link for the user to click (http
 * and https only; the view never opens a window itself), `ui/message` is refused (the inspector has no model,
 * so nothing would read it) and shown, log messages are shown, and only the inline display mode exists.
 */
import type { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge'
import { api, errorOf, isObject, type JsonObject } from './api.js'
import { clip, webLink } from './app-limits.js'

/** A line shown under the view: what it asked for that the page did not do by itself. */
export interface HostNotice {
  readonly text: string
  /** An http(s) link the view asked to open; opened only if the user clicks it. */
  readonly link?: string
}

export interface HostCallbacks {
  readonly onNotice: (notice: HostNotice) => void
  /** The view's content height, unbounded: the frame bounds it. */
  readonly onHeight: (height: number) => void
  readonly onTeardown: () => void
}

type CallResult = Awaited<ReturnType<NonNullable<AppBridge['oncalltool']>>>
type ReadResult = Awaited<ReturnType<NonNullable<AppBridge['onreadresource']>>>
type ListResult = Awaited<ReturnType<NonNullable<AppBridge['onlistresources']>>>

/** An API answer that carries `error` becomes a JSON-RPC error for the view. */
function answered<T>(answer: unknown): T {
  const error = errorOf(answer)
  if (error !== undefined) throw new Error(error)
  return answer as T
}

export function hostHandlers(bridge: AppBridge, callbacks: HostCallbacks): void {
  bridge.oncalltool = async (params) => {
    const outcome = answered<{ result?: JsonObject }>(
      await api('view-call', {
        callId: crypto.randomUUID(),
        tool: params.name,
        args: params.arguments ?? {},
      }),
    )
    const { resultType: _resultType, ...result } = outcome.result ?? {}
    return result as CallResult
  }
  bridge.onreadresource = async (params) => answered<ReadResult>(await api('read', { uri: params.uri }))
  bridge.onlistresources = async () => {
    const lists = await api('lists')
    const resources: unknown = lists.resources
    return { resources: answered<unknown[]>(resources) } as unknown as ListResult
  }
  bridge.onsizechange = ({ height }) => {
    if (typeof height === 'number' && Number.isFinite(height)) callbacks.onHeight(height)
  }
  bridge.onopenlink = async ({ url }) => {
    const link = webLink(url)
    if (link === undefined) {
      callbacks.onNotice({ text: `The view asked to open a link that is not http(s); refused: ${clip(url)}` })
      return { isError: true }
    }
    callbacks.onNotice({ text: 'The view asks to open a link (click to open it):', link })
    return {}
  }
  bridge.onmessage = async ({ content }) => {
    const text = content
      .map((block) => (isObject(block) && block.type === 'text' ? block.text : ''))
      .join(' ')
    callbacks.onNotice({
      text: `The view sent a message for the model (the inspector has none): ${clip(text)}`,
    })
    return { isError: true }
  }
  bridge.onloggingmessage = ({ level, data }) =>
    callbacks.onNotice({ text: `View log (${level}): ${clip(JSON.stringify(data) ?? '')}` })
  bridge.onrequestdisplaymode = async () => ({ mode: 'inline' })
  bridge.onrequestteardown = () => callbacks.onTeardown()
}
