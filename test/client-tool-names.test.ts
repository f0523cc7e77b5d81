/**
 * Tool names that break the tool-name rule (server/tools §Tool Names): a real toolwire server behind a
 * rewriting proxy on a real socket lists tools named with a bidi override, full-width look-alikes, a path,
 * a space, a control character and 129 characters. The client keeps them (the rule is the server's to
 * follow) and warns about each once, through its `warn` option, with the hidden characters escaped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { createFetchHandler, defineServer, defineTool } from '../src/index.js'
import { toolNameProblem } from '../src/wire/tool-name.js'
import { hostileProxy, type HostileProxy } from './helpers/hostile-proxy.js'

/** The name each tool is defined with → the name the hostile server lists it under. */
const HOSTILE: Record<string, string> = {
  bidi: 'evil\u202etxt.exe',
  lookalike: 'ｒｅａｄ_file',
  path: '../etc',
  space: 'read file',
  control: 'bell\u0007',
  long: 'x'.repeat(129),
}
const FINE = ['read_file', 'v1.search-all', 'x'.repeat(128)]
// eslint-disable-next-line no-control-regex -- the test looks for exactly these
const RAW = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

describe('the client listing tools whose names break the naming rule', () => {
  let proxy: HostileProxy
  beforeAll(async () => {
    const names = [...Object.keys(HOSTILE), ...FINE]
    const tools = names.map((name) => defineTool({ name, handler: () => name }))
    const inner = createFetchHandler(
      defineServer({ name: 'names', version: '1.0.0', tools, security: { rateLimit: false } }),
    )
    proxy = await hostileProxy(inner, {
      outbound: (message, method) => {
        const result = message.result as { tools?: { name: string }[] } | undefined
        if (method === 'tools/list' && result?.tools) {
          for (const tool of result.tools) tool.name = HOSTILE[tool.name] ?? tool.name
        }
        return message
      },
    })
  })
  afterAll(() => proxy.close())

  it('keeps every tool, warns once about each broken name, and escapes what the name hides', async () => {
    const warnings: string[] = []
    const client = connect({ url: proxy.url }, { warn: (message) => warnings.push(message) })
    try {
      const listed = (await client.listTools()).tools.map((tool) => tool.name)
      expect(listed.sort()).toEqual([...Object.values(HOSTILE), ...FINE].sort())
      expect(warnings).toHaveLength(Object.keys(HOSTILE).length)
      for (const warning of warnings) {
        expect(warning).toMatch(/breaks the tool-name rule/)
        expect(warning).not.toMatch(RAW)
      }
      const about = (fragment: string): string | undefined => warnings.find((w) => w.includes(fragment))
      expect(about('"evil\\u202etxt.exe"')).toMatch(/U\+202E \\u\{202E\}/)
      expect(about('"ｒｅａｄ_file"')).toMatch(/U\+FF52 \(ｒ\)/)
      expect(about('"../etc"')).toMatch(/U\+002F \(\/\)/)
      expect(about('"read file"')).toMatch(/U\+0020 \\x20/)
      expect(about('"bell\\u0007"')).toMatch(/U\+0007 \\x07/)
      expect(about(`"${'x'.repeat(129)}"`)).toMatch(/129 characters \(at most 128\)/)
      // The list read again warns no more.
      await client.listTools()
      expect(warnings).toHaveLength(Object.keys(HOSTILE).length)
    } finally {
      await client.close()
    }
  })
})

describe('toolNameProblem', () => {
  it('accepts the rule and names what breaks it, listing at most eight characters', () => {
    for (const name of FINE) expect(toolNameProblem(name)).toBeUndefined()
    expect(toolNameProblem('')).toBe('it is empty')
    expect(toolNameProblem('a\u200db')).toMatch(/U\+200D \\u\{200D\}/)
    const many = toolNameProblem('!"#$%&\'()*+,')
    expect(many).toMatch(/and 4 more$/)
  })
})
