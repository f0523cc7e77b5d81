/**
 * The sandbox proxy's script (built to `proxy.js`, served by the second listener, sandbox-server.ts): the
 * outer iframe of the double-iframe pattern of apps §Security Implications, Sandbox proxy. It tells the page it
 * is ready (`ui/notifications/sandbox-proxy-ready`), takes the view's HTML from
 * `ui/notifications/sandbox-resource-ready`, renders it in an inner iframe sandboxed with `allow-scripts` only
 * (an opaque origin: no storage, no cookies, no access to this document), and relays every other message both
 * ways: from the page (checked by origin and window) to the view, from the view (checked by window) to the page
 * only. The page's `sandbox` override and permission requests are not honoured: every view gets the same
 * sandbox and no powerful feature. A view that navigates its frame to another document is removed.
 */
const PROXY_READY = 'ui/notifications/sandbox-proxy-ready'
const RESOURCE_READY = 'ui/notifications/sandbox-resource-ready'

const pageOrigin = new URLSearchParams(location.search).get('host') ?? ''
const inner = document.createElement('iframe')

function start(): void {
  if (window.parent === window || pageOrigin === '') return
  inner.setAttribute('sandbox', 'allow-scripts')
  inner.setAttribute('title', 'Tool view')
  inner.style.cssText = 'display:block;width:100%;height:100%;border:0'
  document.documentElement.style.cssText = 'height:100%;margin:0;overflow:hidden'
  document.body.style.cssText = 'height:100%;margin:0'
  document.body.append(inner)
  let loaded = false
  window.addEventListener('message', (event: MessageEvent) => {
    if (event.source === window.parent) {
      if (event.origin !== pageOrigin) return
      const message: unknown = event.data
      const method =
        typeof message === 'object' && message !== null ? (message as { method?: unknown }).method : undefined
      if (method === RESOURCE_READY) {
        const html = (message as { params?: { html?: unknown } }).params?.html
        // One view per proxy: a second resource would replace a running view under the page's feet.
        if (loaded || typeof html !== 'string') return
        loaded = true
        // The view's document loads once. A later load is the view navigating its frame away (CSP cannot stop
        // that): the new document gets no messages and may send none, so the frame goes.
        let loads = 0
        inner.addEventListener('load', () => {
          if (++loads > 1) inner.remove()
        })
        inner.srcdoc = html
        return
      }
      inner.contentWindow?.postMessage(message, '*')
    } else if (event.source !== null && event.source === inner.contentWindow) {
      // The view's origin is opaque ("null"): its window, not its origin, says the message is the view's.
      window.parent.postMessage(event.data, pageOrigin)
    }
  })
  window.parent.postMessage({ jsonrpc: '2.0', method: PROXY_READY, params: {} }, pageOrigin)
}

if (document.body) start()
else document.addEventListener('DOMContentLoaded', start, { once: true })
