// An MCP Apps tool: its ui:// view is served with the tool, and a client that renders views reads it.
import assert from 'node:assert/strict'
import { z } from 'zod'
import { clientSupportsApps, defineAppView, defineServer, defineTool } from 'toolwire'
import { connect } from 'toolwire/client'
import { serveNode } from 'toolwire/node'

// #region server
// A complete HTML document; in a real app, a bundle your build writes: html: () => readFile(path, 'utf8').
const html = `<!doctype html>
<html><body>
<p id="out">Waiting…</p>
<script>
  const send = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*')
  window.addEventListener('message', ({ data }) => {
    if (data?.id === 1 && 'result' in data) send({ method: 'ui/notifications/initialized', params: {} })
    if (data?.method === 'ui/notifications/tool-result')
      document.getElementById('out').textContent = data.params.structuredContent.summary
  })
  send({ id: 1, method: 'ui/initialize', params: { appInfo: { name: 'forecast', version: '1.0.0' }, appCapabilities: {}, protocolVersion: '2026-01-26' } })
</script>
</body></html>`

const forecastView = defineAppView({
  uri: 'ui://weather/forecast',
  name: 'forecast',
  html,
  csp: { connectDomains: ['https://api.weather.example'] }, // what the view may fetch; none by default
  prefersBorder: true,
})

const forecast = defineTool({
  name: 'forecast',
  description: 'The forecast for a city',
  inputSchema: z.object({ city: z.string() }),
  outputSchema: z.object({ summary: z.string() }),
  ui: forecastView, // _meta.ui.resourceUri; the view is served as a resource without listing it
  handler: ({ city }, ctx) => ({
    // Hosts without views show the text: keep it useful (apps §Graceful Degradation).
    summary: clientSupportsApps(ctx) ? `${city}: see the chart` : `${city}: sunny, 22 °C`,
  }),
})

// A tool only the view calls (a refresh button): hosts keep it from the model.
const refresh = defineTool({
  name: 'forecast_refresh',
  ui: { view: forecastView, visibility: ['app'] },
  inputSchema: z.object({ city: z.string() }),
  handler: ({ city }) => `refreshed ${city}`,
})

const server = defineServer({ name: 'weather', version: '1.0.0', tools: [forecast, refresh] })
// #endregion server

const running = await serveNode(server, { port: 0 })
// #region client
const client = connect({ url: running.url }, { apps: true }) // declares io.modelcontextprotocol/ui
const view = await client.appFor('forecast') // resources/read of the ui:// view, checked
if (view) {
  // Render view.html in a sandboxed iframe under view.contentSecurityPolicy, with allow={view.allow}.
  console.log(view.uri, view.contentSecurityPolicy)
}
// #endregion client
assert.equal(view?.uri, 'ui://weather/forecast')
assert.equal(view?.html, html)
assert.match(view?.contentSecurityPolicy ?? '', /connect-src https:\/\/api\.weather\.example/)
assert.deepEqual((await client.appFor('forecast_refresh'))?.visibility, ['app'])
const result = await client.callTool('forecast', { city: 'Lisbon' })
assert.deepEqual(result.structuredContent, { summary: 'Lisbon: see the chart' })
assert.deepEqual((await client.discover()).capabilities.extensions?.['io.modelcontextprotocol/ui'], {})
await client.close()
await running.close()
console.log('apps: ok')
