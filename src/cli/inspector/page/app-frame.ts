/**
 * A tool's MCP Apps view, shown under its result. The view runs in the sandbox proxy (an iframe from the
 * inspector's second listener, so another origin than this page, which holds the token) and inside it in an
 * inner iframe sandboxed with `allow-scripts` only (apps §Security Implications, Sandbox proxy). This page is
 * the host: ext-apps' `AppBridge` over a `PostMessageTransport` to the proxy's window speaks the view protocol
 * (apps §Communication Protocol), and its handlers reach the server only through the local API, as the page's
 * own calls do. The bridge is a chunk loaded on demand: pages without views never load it.
 */
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge'
import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, isObject, type JsonObject } from './api.js'
import { hostHandlers, type HostNotice } from './app-host.js'
import { boundedHeight, MAX_NOTICES, MAX_VIEW_HEIGHT_PX } from './app-limits.js'

const INITIAL_HEIGHT_PX = 160

interface PageAppView {
  readonly uri: string
  readonly html: string
  readonly meta: JsonObject
  readonly sandboxOrigin: string
}

/** Whether a listed tool has a view: `_meta.ui.resourceUri`, or the older flat `_meta["ui/resourceUri"]`. */
export function hasView(tool: JsonObject): boolean {
  const meta = isObject(tool._meta) ? tool._meta : {}
  const ui = isObject(meta.ui) ? meta.ui : {}
  return typeof (ui.resourceUri ?? meta['ui/resourceUri']) === 'string'
}

/** What the view is told of its host (apps §Host Context): the page's theme, one inline frame. */
function hostContext(): McpUiHostContext {
  return {
    theme: document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light',
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    platform: 'web',
    containerDimensions: { maxHeight: MAX_VIEW_HEIGHT_PX },
  }
}

/** The proxy's URL: the page's origin (the only one that may frame it) and the CSP the view asked for. */
function proxyUrl(view: PageAppView): string {
  const query = new URLSearchParams({ host: location.origin })
  if (isObject(view.meta.csp)) query.set('csp', JSON.stringify(view.meta.csp))
  return `${view.sandboxOrigin}/proxy?${query.toString()}`
}

export function AppFrame(props: { tool: string; args: JsonObject; result: JsonObject }): VNode {
  const [view, setView] = useState<PageAppView | null | undefined>(undefined)
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const [height, setHeight] = useState(INITIAL_HEIGHT_PX)
  const [notices, setNotices] = useState<HostNotice[]>([])
  const [closed, setClosed] = useState(false)
  const frame = useRef<HTMLIFrameElement>(null)

  useEffect(() => {
    void api<{ view?: PageAppView | null; error?: string }>('view', { tool: props.tool }).then(
      (answer) => (answer.error !== undefined ? setProblem(answer.error) : setView(answer.view ?? null)),
      (error: unknown) => setProblem(String(error)),
    )
  }, [props.tool])

  useEffect(() => {
    const iframe = frame.current
    const target = iframe?.contentWindow
    if (!view || !iframe || !target) return
    let stop: (() => Promise<void>) | undefined
    let gone = false
    void (async () => {
      const { AppBridge, PostMessageTransport } = await import('@modelcontextprotocol/ext-apps/app-bridge')
      if (gone) return
      const bridge = new AppBridge(
        null,
        { name: 'toolwire-inspector', version: '0.1.0' },
        { serverTools: {}, serverResources: {}, openLinks: {}, logging: {} },
        { hostContext: hostContext() },
      )
      // The page's theme toggle reaches the view (ui/notifications/host-context-changed).
      const themes = new MutationObserver(() => bridge.setHostContext(hostContext()))
      themes.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })
      hostHandlers(bridge, {
        onNotice: (notice) => setNotices((old) => [...old, notice].slice(-MAX_NOTICES)),
        onHeight: (next) => setHeight(boundedHeight(next)),
        onTeardown: () => setClosed(true),
      })
      bridge.onsandboxready = () =>
        void bridge.sendSandboxResourceReady({
          html: view.html,
          ...(isObject(view.meta.csp) && { csp: view.meta.csp }),
        })
      bridge.oninitialized = () => {
        // apps §Lifecycle: the input, then the result, once the view said it is initialized.
        void bridge
          .sendToolInput({ arguments: props.args })
          .then(() => bridge.sendToolResult(forView(props.result) as never))
      }
      await bridge.connect(new PostMessageTransport(target, target))
      if (gone) {
        themes.disconnect()
        return void bridge.close()
      }
      stop = async () => {
        themes.disconnect()
        try {
          await bridge.teardownResource({ reason: 'the inspector replaced the view' }, { timeout: 2_000 })
        } finally {
          await bridge.close()
        }
      }
      // Only now the proxy loads: its ready message must find the bridge listening.
      iframe.src = proxyUrl(view)
    })().catch((error: unknown) => setProblem(`the view host failed: ${String(error)}`))
    return () => {
      gone = true
      void stop?.().catch(() => undefined)
    }
  }, [view])

  if (problem) return html`<div class="error" role="alert">The tool's view cannot be shown: ${problem}</div>`
  if (view === null || closed) return html``
  return html`<section class="app-view" aria-label="App view">
    <h4>View ${view ? html`<code>${view.uri}</code>` : ''}</h4>
    <iframe
      ref=${frame}
      title=${`View of ${props.tool}`}
      class=${view?.meta.prefersBorder === false ? 'app-frame' : 'app-frame bordered'}
      sandbox="allow-scripts allow-same-origin"
      referrerpolicy="no-referrer"
      height=${height}
    ></iframe>
    ${notices.map(
      (notice, index) =>
        html`<div key=${index} class="notice" role="status">
          ${notice.text}
          ${notice.link ? html` <a href=${notice.link} target="_blank" rel="noopener noreferrer">${notice.link}</a>` : ''}
        </div>`,
    )}
    ${view === undefined ? html`<p class="hint">Loading the view…</p>` : ''}
  </section>`
}

/** The standard result the view receives: the 2026-07-28 `resultType` is no part of it. */
export function forView(result: JsonObject): JsonObject {
  const { resultType: _resultType, ...rest } = result
  return rest
}
