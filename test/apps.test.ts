/**
 * MCP Apps (`io.modelcontextprotocol/ui`) on the server and the client: a tool with a `ui://` view served on a
 * real socket, read by the official SDK v1 client and by toolwire's client; definitions refused when the view
 * is missing, not `ui://`, or its metadata malformed; views the client refuses (wrong type, oversized, a CSP
 * entry that would widen the policy).
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { getToolUiResourceUri, isToolVisibilityAppOnly } from '@modelcontextprotocol/ext-apps/app-bridge'
import { getUiCapability } from '@modelcontextprotocol/ext-apps/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appToolVisibility, AppViewError, connect } from '../src/client/index.js'
import {
  AppDefinitionError,
  clientSupportsApps,
  createFetchHandler,
  defineAppView,
  defineResource,
  defineResourceTemplate,
  defineServer,
  defineTool,
  jsonSchema,
  type Server,
  UI_EXTENSION,
  UI_MIME_TYPE,
} from '../src/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { recordingFetch } from './helpers/recording-fetch.js'

const HTML = '<!doctype html><html><body><p id="out">waiting</p></body></html>'

const dashboard = defineAppView({
  uri: 'ui://weather/dashboard',
  name: 'weather_dashboard',
  description: 'The forecast, drawn',
  html: HTML,
  csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
  permissions: { clipboardWrite: {} },
  prefersBorder: true,
})

const weather = defineTool({
  name: 'weather',
  description: 'The forecast for a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  }),
  ui: dashboard,
  handler: ({ city }, ctx) =>
    clientSupportsApps(ctx) ? `Shown in the dashboard: ${city}` : `${city}: sunny, 22 °C`,
})

const refresh = defineTool({
  name: 'weather_refresh',
  ui: { view: dashboard, visibility: ['app'] },
  handler: () => 'refreshed',
})

function appServer(extra: Partial<Parameters<typeof defineServer>[0]> = {}): Server {
  return defineServer({ name: 'apps-test', version: '1.0.0', tools: [weather, refresh], ...extra })
}

let running: RunningServer
beforeAll(async () => {
  running = await serveNode(appServer(), { host: '127.0.0.1', port: 0 })
})
afterAll(async () => {
  await running.close()
})

describe('the server', () => {
  it('writes the view into the tool metadata, both keys', () => {
    const server = appServer()
    const tool = server.tools.get('weather')?.wire
    expect(tool?._meta).toEqual({
      ui: { resourceUri: 'ui://weather/dashboard' },
      'ui/resourceUri': 'ui://weather/dashboard',
    })
    expect(server.tools.get('weather_refresh')?.wire._meta?.ui).toEqual({
      resourceUri: 'ui://weather/dashboard',
      visibility: ['app'],
    })
  })

  it('serves the view it was given through a tool, and advertises the extension', () => {
    const server = appServer()
    expect(server.resources.get('ui://weather/dashboard')).toBeDefined()
    expect(server.capabilities.extensions?.[UI_EXTENSION]).toEqual({})
    expect(server.capabilities.resources).toBeDefined()
    const plain = defineServer({
      name: 'p',
      version: '1',
      tools: [defineTool({ name: 't', handler: () => '' })],
    })
    expect(plain.capabilities.extensions?.[UI_EXTENSION]).toBeUndefined()
  })

  it('accepts the view in resources too, once', () => {
    const server = appServer({ resources: [dashboard] })
    expect(server.resources.enabled().map((r) => r.key)).toEqual(['ui://weather/dashboard'])
  })

  it('accepts a view served by a resource template', () => {
    const tool = defineTool({
      name: 'card',
      _meta: { ui: { resourceUri: 'ui://cards/7' } },
      handler: () => '',
    })
    const template = defineResourceTemplate({
      uriTemplate: 'ui://cards/{id}',
      name: 'card',
      mimeType: UI_MIME_TYPE,
      read: () => HTML,
    })
    expect(() =>
      defineServer({ name: 's', version: '1', tools: [tool], resources: [template] }),
    ).not.toThrow()
  })
})

describe('definitions refused', () => {
  const refused = (make: () => unknown, message: RegExp): void => {
    let caught: unknown
    try {
      make()
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(AppDefinitionError)
    expect((caught as AppDefinitionError).errorCode).toBe('ERR_APP_DEFINITION')
    expect((caught as Error).message).toMatch(message)
  }

  it('a view whose URI is not ui://', () => {
    refused(() => defineAppView({ uri: 'https://example.com/v', name: 'v', html: HTML }), /ui:\/\/ URI/)
    refused(() => defineAppView({ uri: 'ui://', name: 'v', html: HTML }), /ui:\/\/ URI/)
  })

  it('a tool whose view is not served', () => {
    const tool = defineTool({ name: 'lost', ui: { view: 'ui://nowhere/view' }, handler: () => '' })
    refused(
      () => defineServer({ name: 's', version: '1', tools: [tool] }),
      /ui:\/\/nowhere\/view is not a resource/,
    )
  })

  it('a tool whose _meta.ui names a non-ui:// resource', () => {
    const tool = defineTool({
      name: 'bad',
      _meta: { ui: { resourceUri: 'https://x.example/v' } },
      handler: () => '',
    })
    refused(
      () => defineServer({ name: 's', version: '1', tools: [tool] }),
      /resourceUri must be a ui:\/\/ URI/,
    )
  })

  it('malformed view metadata: CSP injection, bad types, unknown keys', () => {
    const view = (extra: object) => () =>
      defineAppView({ uri: 'ui://x/v', name: 'v', html: HTML, ...extra } as Parameters<
        typeof defineAppView
      >[0])
    refused(
      view({ csp: { connectDomains: ["https://a.example; script-src 'unsafe-eval'"] } }),
      /connectDomains\[0\]/,
    )
    refused(view({ csp: { resourceDomains: ['*'] } }), /resourceDomains\[0\]/)
    refused(view({ csp: { frameDomains: "'self'" } }), /frameDomains must be an array/)
    refused(view({ csp: { connectDomain: ['https://a.example'] } }), /unknown key "connectDomain"/)
    refused(view({ permissions: { camera: true } }), /permissions.camera must be an empty object/)
    refused(view({ permissions: { usb: {} } }), /unknown key "usb"/)
    refused(view({ prefersBorder: 'yes' }), /prefersBorder must be a boolean/)
    refused(view({ html: '' }), /html is empty/)
  })

  it('malformed tool metadata: visibility, csp on the tool, two different views', () => {
    const tool = (meta: Record<string, unknown>) => () =>
      defineServer({
        name: 's',
        version: '1',
        tools: [defineTool({ name: 't', _meta: meta, handler: () => '' })],
      })
    refused(tool({ ui: { visibility: ['agent'] } }), /visibility must be an array of "model" and "app"/)
    refused(tool({ ui: { visibility: [] } }), /visibility is empty/)
    refused(tool({ ui: { csp: {} } }), /belong on the ui:\/\/ resource/)
    refused(tool({ ui: { resourceUri: 'ui://a/v' }, 'ui/resourceUri': 'ui://b/v' }), /name different views/)
  })
})

describe('the official SDK v1 client', () => {
  it('lists the tool with its view and reads the ui:// resource with its type and metadata', async () => {
    const client = new SdkClient({ name: 'sdk-v1-apps', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(running.url))
    await client.connect(transport)
    try {
      // 2025-era hosts negotiate the extension in initialize too.
      expect(client.getServerCapabilities()?.extensions).toEqual({ [UI_EXTENSION]: {} })
      const { tools } = await client.listTools()
      const tool = tools.find((t) => t.name === 'weather')
      expect(tool).toBeDefined()
      // ext-apps' own host helpers read what the server wrote.
      expect(getToolUiResourceUri(tool as never)).toBe('ui://weather/dashboard')
      expect(isToolVisibilityAppOnly(tools.find((t) => t.name === 'weather_refresh') as never)).toBe(true)
      const { resources } = await client.listResources()
      const listed = resources.find((r) => r.uri === 'ui://weather/dashboard')
      expect(listed?.mimeType).toBe(UI_MIME_TYPE)
      expect(listed?._meta?.ui).toMatchObject({ prefersBorder: true, permissions: { clipboardWrite: {} } })
      const read = await client.readResource({ uri: 'ui://weather/dashboard' })
      expect(read.contents).toEqual([
        {
          uri: 'ui://weather/dashboard',
          mimeType: UI_MIME_TYPE,
          text: HTML,
          _meta: {
            ui: {
              csp: {
                connectDomains: ['https://api.example.com'],
                resourceDomains: ['https://*.cdn.example.com'],
              },
              permissions: { clipboardWrite: {} },
              prefersBorder: true,
            },
          },
        },
      ])
      // A client that declared nothing gets the text fallback (apps §Graceful Degradation).
      const result = await client.callTool({ name: 'weather', arguments: { city: 'Porto' } })
      expect(result.content).toEqual([{ type: 'text', text: 'Porto: sunny, 22 °C' }])
    } finally {
      await transport.terminateSession()
      await client.close()
    }
  })
})

describe('a 2025-era host that declares the extension in initialize', () => {
  it('is seen by clientSupportsApps', async () => {
    const client = new SdkClient(
      { name: 'sdk-v1-host', version: '1.0.0' },
      { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } } },
    )
    const transport = new StreamableHTTPClientTransport(new URL(running.url))
    await client.connect(transport)
    try {
      const result = await client.callTool({ name: 'weather', arguments: { city: 'Porto' } })
      expect(result.content).toEqual([{ type: 'text', text: 'Shown in the dashboard: Porto' }])
    } finally {
      await transport.terminateSession()
      await client.close()
    }
  })
})

describe("toolwire's client", () => {
  it('declares the extension when asked to, and the server sees it', async () => {
    const client = connect({ url: running.url }, { apps: true })
    try {
      expect(getUiCapability(client.capabilities as never)).toEqual({ mimeTypes: [UI_MIME_TYPE] })
      const discovered = await client.discover()
      expect(discovered.capabilities.extensions?.[UI_EXTENSION]).toEqual({})
      const result = await client.callTool('weather', { city: 'Porto' })
      expect(result.content).toEqual([{ type: 'text', text: 'Shown in the dashboard: Porto' }])
    } finally {
      await client.close()
    }
    const plain = connect({ url: running.url })
    try {
      expect(plain.capabilities.extensions?.[UI_EXTENSION]).toBeUndefined()
      const result = await plain.callTool('weather', { city: 'Porto' })
      expect(result.content).toEqual([{ type: 'text', text: 'Porto: sunny, 22 °C' }])
    } finally {
      await plain.close()
    }
  })

  it('every server message of the exchange is valid per the MCP schema', async () => {
    const recorder = recordingFetch(createFetchHandler(appServer()))
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: recorder.fetch }, { apps: true })
    await client.discover()
    await client.listTools()
    await client.listResources()
    expect((await client.appFor('weather'))?.html).toBe(HTML)
    await client.callTool('weather_refresh')
    expect(recorder.requests.map((r) => r.body.method)).toContain('resources/read')
    expect(recorder.problems).toEqual([])
  })

  it('appFor: the HTML, the metadata, the CSP and allow list to render it under', async () => {
    const client = connect({ url: running.url }, { apps: true })
    try {
      const view = await client.appFor('weather')
      expect(view).toMatchObject({ uri: 'ui://weather/dashboard', html: HTML, visibility: ['model', 'app'] })
      expect(view?.meta.prefersBorder).toBe(true)
      expect(view?.allow).toBe('clipboard-write')
      const policy = view?.contentSecurityPolicy ?? ''
      expect(policy).toContain('connect-src https://api.example.com')
      expect(policy).toContain("script-src 'self' 'unsafe-inline' https://*.cdn.example.com")
      expect(policy).toContain("frame-src 'none'")
      expect(policy).toContain("object-src 'none'")
      expect((await client.appFor('weather_refresh'))?.visibility).toEqual(['app'])
      const { tools } = await client.listTools()
      expect(tools.filter((tool) => appToolVisibility(tool).includes('model')).map((t) => t.name)).toEqual([
        'weather',
      ])
    } finally {
      await client.close()
    }
  })
})

/** A server that serves views a host must refuse: the definition-time checks are bypassed with plain resources. */
async function hostileServer(): Promise<RunningServer> {
  const tool = (name: string, uri: string) =>
    defineTool({ name, _meta: { ui: { resourceUri: uri } }, handler: () => '' })
  const big = '<!doctype html>' + 'x'.repeat(5 * 1024 * 1024)
  return serveNode(
    defineServer({
      name: 'hostile',
      version: '1',
      tools: [
        tool('wrong_type', 'ui://h/plain'),
        tool('oversized', 'ui://h/big'),
        tool('oversized_blob', 'ui://h/big-blob'),
        tool('injected', 'ui://h/injected'),
        tool('listing_meta', 'ui://h/listed'),
        defineTool({ name: 'no_view', handler: () => '' }),
      ],
      resources: [
        defineResource({ uri: 'ui://h/plain', name: 'plain', mimeType: 'text/html', read: () => HTML }),
        defineResource({ uri: 'ui://h/big', name: 'big', mimeType: UI_MIME_TYPE, read: () => big }),
        defineResource({
          uri: 'ui://h/big-blob',
          name: 'big-blob',
          mimeType: UI_MIME_TYPE,
          read: () => new TextEncoder().encode(big),
        }),
        defineResource({
          uri: 'ui://h/injected',
          name: 'injected',
          mimeType: UI_MIME_TYPE,
          read: () => ({ text: HTML, _meta: { ui: { csp: { connectDomains: ["* 'unsafe-eval'"] } } } }),
        }),
        defineResource({
          uri: 'ui://h/listed',
          name: 'listed',
          mimeType: UI_MIME_TYPE,
          _meta: {
            ui: { csp: { frameDomains: ['https://player.example.com'] }, permissions: { camera: {} } },
          },
          read: () => HTML,
        }),
      ],
    }),
    { host: '127.0.0.1', port: 0 },
  )
}

describe('views the client refuses', () => {
  let hostile: RunningServer
  beforeAll(async () => {
    hostile = await hostileServer()
  })
  afterAll(async () => {
    await hostile.close()
  })

  const refusal = async (tool: string, options: { maxViewBytes?: number } = {}): Promise<AppViewError> => {
    const client = connect({ url: hostile.url }, { apps: true })
    try {
      const error = await client.appFor(tool, options).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(error).toBeInstanceOf(AppViewError)
      expect((error as AppViewError).errorCode).toBe('ERR_APP_VIEW')
      return error as AppViewError
    } finally {
      await client.close()
    }
  }

  it('a view served with another type', async () => {
    expect((await refusal('wrong_type')).message).toMatch(/type "text\/html", not text\/html;profile=mcp-app/)
  })

  it('a view over maxViewBytes, as text or as a blob (default 4 MiB, and a smaller bound)', async () => {
    expect((await refusal('oversized')).message).toMatch(/over the 4194304-byte limit/)
    expect((await refusal('oversized_blob')).message).toMatch(/over the 4194304-byte limit/)
    const small = connect({ url: running.url }, { apps: true })
    try {
      await expect(small.appFor('weather', { maxViewBytes: HTML.length - 1 })).rejects.toThrow(/over the/)
      expect((await small.appFor('weather', { maxViewBytes: HTML.length }))?.html).toBe(HTML)
    } finally {
      await small.close()
    }
  })

  it('a CSP entry that would widen the policy', async () => {
    expect((await refusal('injected')).message).toMatch(/connectDomains\[0\]/)
  })

  it('an unknown tool', async () => {
    expect((await refusal('not_there')).message).toMatch(/lists no tool not_there/)
  })

  it('falls back to the listing entry for metadata, and has no view for a plain tool', async () => {
    const client = connect({ url: hostile.url }, { apps: true })
    try {
      const view = await client.appFor('listing_meta')
      expect(view?.meta).toEqual({
        csp: { frameDomains: ['https://player.example.com'] },
        permissions: { camera: {} },
      })
      expect(view?.contentSecurityPolicy).toContain('frame-src https://player.example.com')
      expect(view?.contentSecurityPolicy).toContain("connect-src 'none'")
      expect(view?.allow).toBe('camera')
      expect(await client.appFor('no_view')).toBeUndefined()
    } finally {
      await client.close()
    }
  })
})
