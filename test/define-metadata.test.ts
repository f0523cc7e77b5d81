/** Definition-time checks of descriptive fields: what a server publishes must have the spec schema's shape. */
import { describe, expect, it } from 'vitest'
import {
  definePrompt,
  defineResource,
  defineServer,
  defineTool,
  PromptDefinitionError,
  ResourceDefinitionError,
  ToolDefinitionError,
} from '../src/index.js'

const toolWith = (extra: Record<string, unknown>) =>
  defineServer({
    name: 't',
    version: '1',
    tools: [defineTool({ name: 'x', handler: () => '', ...(extra as object) })],
  })

describe('tool metadata', () => {
  it('accepts well-formed icons, annotations and titles', () => {
    expect(() =>
      toolWith({
        title: 'X',
        icons: [
          { src: 'https://example.com/x.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' },
          { src: 'data:image/png;base64,iVBORw0KGgo=' },
        ],
        annotations: { title: 'X', readOnlyHint: true, openWorldHint: false },
        _meta: { 'example.com/k': 1 },
      }),
    ).not.toThrow()
  })

  it.each([
    [{ icons: 'x' }, /icons must be an array/],
    [{ icons: [{ src: 5 }] }, /icons\[0\]\.src must be an https: URL or a data: URI/],
    [{ icons: [{ src: 'javascript:alert(1)' }] }, /icons\[0\]\.src/],
    [{ icons: [{ src: 'file:///etc/passwd' }] }, /icons\[0\]\.src/],
    [{ icons: [{ src: 'http://example.com/x.png' }] }, /icons\[0\]\.src/],
    [{ icons: [{ src: 'https://example.com/x.png', theme: 'purple' }] }, /theme must be "light" or "dark"/],
    [{ icons: [{ src: 'https://example.com/x.png', sizes: '48x48' }] }, /sizes must be an array of strings/],
    [{ annotations: { readOnlyHint: 'yes' } }, /annotations\.readOnlyHint must be true or false/],
    [{ annotations: 'read-only' }, /annotations must be an object/],
    [{ title: 5 }, /title must be a string/],
    [{ description: ['a'] }, /description must be a string/],
    [{ _meta: 'x' }, /_meta must be an object/],
  ])('refuses %j', (extra, message) => {
    expect(() => toolWith(extra)).toThrow(ToolDefinitionError)
    expect(() => toolWith(extra)).toThrow(message)
  })
})

describe('tool _meta key names (basic/index §_meta)', () => {
  it.each([
    'plain',
    'a.b_c-d',
    '',
    'com.example/region',
    'com.example.mcp/x',
    'openai/outputTemplate',
    'com.example-2/k9',
    'org.example.api/',
  ])('accepts %j', (key) => {
    expect(() => toolWith({ _meta: { [key]: 1 } })).not.toThrow()
  })

  it.each([
    ['-lead', /name must start and end with a letter or digit/],
    ['trail_', /name must start and end/],
    ['has space', /name must start and end/],
    ['com.example/a/b', /its prefix must be dot-separated labels/],
    ['1com.example/k', /its prefix must be dot-separated labels/],
    ['com-.example/k', /its prefix must be dot-separated labels/],
    ['com..example/k', /its prefix must be dot-separated labels/],
    ['/k', /its prefix must be dot-separated labels/],
    ['io.modelcontextprotocol/mine', /its prefix io\.modelcontextprotocol\/ is reserved for MCP/],
    ['dev.mcp/k', /its prefix dev\.mcp\/ is reserved for MCP/],
    ['org.modelcontextprotocol.api/k', /reserved for MCP/],
    ['com.MCP.tools/k', /reserved for MCP/],
  ])('refuses %j, naming the key', (key, message) => {
    const define = () => toolWith({ _meta: { ok: 1, [key]: 1 } })
    expect(define).toThrow(ToolDefinitionError)
    expect(define).toThrow(`Tool x: _meta key ${JSON.stringify(key)} is invalid: `)
    expect(define).toThrow(message)
  })
})

describe('prompt, resource and server metadata', () => {
  it('refuses malformed prompt fields', () => {
    const prompt = (extra: Record<string, unknown>) =>
      defineServer({
        name: 't',
        version: '1',
        prompts: [definePrompt({ name: 'p', handler: () => 'hi', ...(extra as object) })],
      })
    expect(() => prompt({ icons: [{ src: 'ftp://x/y.png' }] })).toThrow(PromptDefinitionError)
    expect(() => prompt({ title: 5 })).toThrow(/title must be a string/)
    expect(() => prompt({ arguments: [{ name: 'a', required: 'yes' }] })).toThrow(
      /required must be true or false/,
    )
  })

  it('refuses malformed resource fields, including its cache scope', () => {
    const resource = (extra: Record<string, unknown>) =>
      defineServer({
        name: 't',
        version: '1',
        resources: [defineResource({ uri: 'notes://a', name: 'a', read: () => 'x', ...(extra as object) })],
      })
    expect(() => resource({ cache: { scope: 'everyone' } })).toThrow(ResourceDefinitionError)
    expect(() => resource({ annotations: { priority: 2 } })).toThrow(/priority must be a number from 0 to 1/)
    expect(() => resource({ annotations: { audience: ['admin'] } })).toThrow(/audience/)
    expect(() => resource({ icons: [{ src: 'javascript:alert(1)' }] })).toThrow(/icons\[0\]\.src/)
  })

  it("refuses a bad cache scope or server icon in defineServer's own options", () => {
    const base = { name: 't', version: '1' }
    expect(() => defineServer({ ...base, cache: { scope: 'everyone' as 'public' } })).toThrow(
      /cache\.scope must be "public" or "private"/,
    )
    expect(() => defineServer({ ...base, discoverCache: { scope: 'all' as 'public' } })).toThrow(
      /discoverCache\.scope/,
    )
    expect(() => defineServer({ ...base, icons: [{ src: 'javascript:x' }] })).toThrow(/icons\[0\]\.src/)
  })

  it('accepts a well-formed server description', () => {
    expect(() =>
      defineServer({
        name: 'notes',
        version: '1.2.0',
        title: 'Notes',
        description: 'Keeps notes',
        websiteUrl: 'https://example.com/notes?tab=1',
        icons: [{ src: 'https://example.com/icon.png' }],
        instructions: 'Use search before write.',
      }),
    ).not.toThrow()
    expect(() =>
      defineServer({ name: 'n', version: '1', websiteUrl: 'http://localhost:8080/' }),
    ).not.toThrow()
  })

  it.each([
    [{ instructions: 5 }, /instructions must be a string, not 5/],
    [{ websiteUrl: 'javascript:1' }, /websiteUrl must be an http: or https: URL, not "javascript:1"/],
    [{ websiteUrl: 'data:text/html,<b>x</b>' }, /websiteUrl must be an http: or https: URL/],
    [{ websiteUrl: 'https://' }, /websiteUrl/],
    [{ websiteUrl: 7 }, /websiteUrl/],
    [{ name: 5 }, /name must be a non-empty string, not 5/],
    [{ name: '  ' }, /name must be a non-empty string/],
    [{ version: 1 }, /version must be a non-empty string, not 1/],
    [{ title: 5 }, /title must be a string/],
    [{ description: ['a'] }, /description must be a string/],
    [{ icons: [{ src: 'file:///x.png' }] }, /icons\[0\]\.src/],
  ])('refuses the server field %j', (extra, message) => {
    const define = () => defineServer({ name: 't', version: '1', ...(extra as object) })
    expect(define).toThrow(TypeError)
    expect(define).toThrow(/^defineServer: /)
    expect(define).toThrow(message)
  })
})
