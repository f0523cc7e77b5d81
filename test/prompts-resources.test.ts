import { describe, expect, it } from 'vitest'
import {
  compileUriTemplate,
  createFetchHandler,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineServer,
} from '../src/index.js'
import { createFixtureServer } from './fixtures/conformance/server.js'
import { PNG_1X1 } from './fixtures/conformance/media.js'
import { errorOf, post, resultOf } from './helpers/http.js'

const fixture = createFetchHandler(createFixtureServer())

describe('prompts', () => {
  it('lists prompts with cache hints', async () => {
    const result = resultOf(await post(fixture, 'prompts/list'))
    expect(result).toMatchObject({ resultType: 'complete', cacheScope: 'public' })
    expect(typeof result.ttlMs).toBe('number')
    const names = (result.prompts as { name: string }[]).map((p) => p.name)
    expect(names).toContain('test_prompt_with_arguments')
  })

  it('substitutes arguments', async () => {
    const result = resultOf(
      await post(fixture, 'prompts/get', {
        name: 'test_prompt_with_arguments',
        arguments: { arg1: 'one', arg2: 'two' },
      }),
    )
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='one', arg2='two'" } },
    ])
  })

  it('rejects missing, unknown or non-string arguments and unknown prompts with -32602', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } }, /needs the arguments: arg2/],
      [{ name: 'test_prompt_with_arguments', arguments: { arg1: 'x', arg2: 3 } }, /must be a string/],
      [
        { name: 'test_prompt_with_arguments', arguments: { arg1: 'x', arg2: 'y', arg3: 'z' } },
        /no argument arg3/,
      ],
      [{ name: 'test_prompt_with_arguments', arguments: ['x'] }, /arguments must be an object/],
      [{ name: 'no_such_prompt' }, /Unknown prompt/],
    ]
    for (const [params, message] of cases) {
      const error = errorOf(await post(fixture, 'prompts/get', params))
      expect(error.code).toBe(-32602)
      expect(error.message).toMatch(message)
    }
  })

  it('checks Mcp-Name against params.name', async () => {
    const answer = await post(
      fixture,
      'prompts/get',
      { name: 'test_simple_prompt' },
      { headers: { 'mcp-name': 'test_prompt_with_image' } },
    )
    expect(answer.status).toBe(400)
    expect(errorOf(answer).code).toBe(-32020)
  })

  it('turns a broken handler result into an internal error, never an invalid message', async () => {
    const server = defineServer({
      name: 's',
      version: '1',
      logger: { error: () => {}, warn: () => {} },
      prompts: [definePrompt({ name: 'broken', handler: () => [{ role: 'robot', content: 'x' }] as never })],
    })
    expect(errorOf(await post(createFetchHandler(server), 'prompts/get', { name: 'broken' })).code).toBe(
      -32603,
    )
  })
})

describe('resources', () => {
  it('reads text, binary and templated resources with cache hints', async () => {
    const text = resultOf(await post(fixture, 'resources/read', { uri: 'test://static-text' }))
    expect(text).toMatchObject({
      resultType: 'complete',
      cacheScope: 'public',
      contents: [
        {
          uri: 'test://static-text',
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ],
    })
    const binary = resultOf(await post(fixture, 'resources/read', { uri: 'test://static-binary' }))
    expect(binary.contents).toEqual([{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_1X1 }])
    const templated = resultOf(await post(fixture, 'resources/read', { uri: 'test://template/a%20b/data' }))
    expect(JSON.parse((templated.contents as { text: string }[])[0]?.text ?? '')).toMatchObject({ id: 'a b' })
  })

  it('answers an unknown URI with -32602 and data.uri', async () => {
    const error = errorOf(await post(fixture, 'resources/read', { uri: 'test://nope' }))
    expect(error).toMatchObject({ code: -32602, data: { uri: 'test://nope' } })
  })

  it('lists resources and templates', async () => {
    const list = resultOf(await post(fixture, 'resources/list'))
    expect((list.resources as { uri: string }[]).map((r) => r.uri)).toContain('test://static-text')
    const templates = resultOf(await post(fixture, 'resources/templates/list'))
    expect(templates.resourceTemplates).toEqual([
      {
        uriTemplate: 'test://template/{id}/data',
        name: 'template-data',
        description: 'Data for any id',
        mimeType: 'application/json',
      },
    ])
  })

  it('paginates with opaque cursors, pages reused until the set changes', async () => {
    const server = defineServer({
      name: 's',
      version: '1',
      pageSize: 2,
      resources: ['a', 'b', 'c', 'd', 'e'].map((n) =>
        defineResource({ uri: `x://${n}`, name: n, read: () => n }),
      ),
    })
    const fetcher = createFetchHandler(server)
    const seen: string[] = []
    let cursor: unknown
    do {
      const page = resultOf(await post(fetcher, 'resources/list', cursor === undefined ? {} : { cursor }))
      seen.push(...(page.resources as { name: string }[]).map((r) => r.name))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(errorOf(await post(fetcher, 'resources/list', { cursor: 'bogus' })).code).toBe(-32602)
    expect(server.resources.page(undefined)).toBe(server.resources.page(undefined))
    server.resources.remove('x://a')
    const first = resultOf(await post(fetcher, 'resources/list'))
    expect((first.resources as { name: string }[]).map((r) => r.name)).toEqual(['b', 'c'])
  })

  it('uses per-resource cache hints and rejects a read returning nothing', async () => {
    const server = defineServer({
      name: 's',
      version: '1',
      logger: { error: () => {}, warn: () => {} },
      resources: [
        defineResource({
          uri: 'x://private',
          name: 'p',
          cache: { ttlMs: 0, scope: 'private' },
          read: () => 'mine',
        }),
        defineResource({ uri: 'x://empty', name: 'e', read: () => [] }),
      ],
    })
    const fetcher = createFetchHandler(server)
    expect(resultOf(await post(fetcher, 'resources/read', { uri: 'x://private' }))).toMatchObject({
      ttlMs: 0,
      cacheScope: 'private',
    })
    expect(errorOf(await post(fetcher, 'resources/read', { uri: 'x://empty' })).code).toBe(-32603)
  })

  it('checks Mcp-Name against params.uri', async () => {
    const answer = await post(
      fixture,
      'resources/read',
      { uri: 'test://static-text' },
      { headers: { 'mcp-name': 'test://static-binary' } },
    )
    expect(answer.status).toBe(400)
    expect(errorOf(answer).code).toBe(-32020)
  })

  it('refuses bad definitions at startup', () => {
    expect(() =>
      defineServer({
        name: 's',
        version: '1',
        resources: [defineResource({ uri: 'relative', name: 'r', read: () => '' })],
      }),
    ).toThrow(/absolute URI/)
    expect(() =>
      defineServer({
        name: 's',
        version: '1',
        resources: [defineResourceTemplate({ uriTemplate: 'x://{a', name: 't', read: () => '' })],
      }),
    ).toThrow(/Malformed/)
  })
})

describe('URI templates', () => {
  it('matches level 1-3 expressions in reverse', () => {
    expect(compileUriTemplate('file:///{dir}/{name}.txt').match('file:///docs/a%2Fb.txt')).toEqual({
      dir: 'docs',
      name: 'a/b',
    })
    expect(compileUriTemplate('file:///{dir}/x').match('file:///a/b/x')).toBeUndefined()
    expect(compileUriTemplate('repo://{+path}').match('repo://src/index.ts')).toEqual({
      path: 'src/index.ts',
    })
    expect(
      compileUriTemplate('search://items{?q,limit}').match('search://items?q=cat&limit=5&other=1'),
    ).toEqual({ q: 'cat', limit: '5' })
    expect(compileUriTemplate('doc://x{/id}').match('doc://x/42')).toEqual({ id: '42' })
    expect(() => compileUriTemplate('x://{a}/{a}')).toThrow(/repeats/)
  })
})

describe('completion/complete', () => {
  it('completes prompt arguments and template variables, capped at 100', async () => {
    const prompt = resultOf(
      await post(fixture, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'par' },
      }),
    )
    expect(prompt).toMatchObject({
      resultType: 'complete',
      completion: { values: ['paris', 'park', 'party'], total: 3, hasMore: false },
    })
    const template = resultOf(
      await post(fixture, 'completion/complete', {
        ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
        argument: { name: 'id', value: '1' },
      }),
    )
    expect((template.completion as { values: string[] }).values).toEqual(['1', '123'])
    const many = defineServer({
      name: 's',
      version: '1',
      prompts: [
        definePrompt({
          name: 'p',
          arguments: [{ name: 'n', complete: () => Array.from({ length: 150 }, (_, i) => String(i)) }],
          handler: () => 'x',
        }),
      ],
    })
    const capped = resultOf(
      await post(createFetchHandler(many), 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'p' },
        argument: { name: 'n', value: '' },
      }),
    )
    expect(capped.completion).toMatchObject({ total: 150, hasMore: true })
    expect((capped.completion as { values: string[] }).values).toHaveLength(100)
  })

  it('answers an argument without completer with no values, and bad refs with -32602', async () => {
    const none = resultOf(
      await post(fixture, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg2', value: '' },
      }),
    )
    expect(none.completion).toEqual({ values: [], total: 0, hasMore: false })
    for (const params of [
      { ref: { type: 'ref/prompt', name: 'missing' }, argument: { name: 'a', value: '' } },
      { ref: { type: 'ref/other' }, argument: { name: 'a', value: '' } },
      { ref: { type: 'ref/prompt', name: 'test_simple_prompt' }, argument: { name: 'a' } },
    ]) {
      expect(errorOf(await post(fixture, 'completion/complete', params)).code).toBe(-32602)
    }
  })
})

describe('server/discover', () => {
  it('advertises what the fixture serves', async () => {
    const result = resultOf(await post(fixture, 'server/discover'))
    expect(result.capabilities).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      completions: {},
    })
  })

  it('declares no prompts, resources or completions for a tools-only server, and 404s their methods', async () => {
    const fetcher = createFetchHandler(defineServer({ name: 's', version: '1', tools: [] }))
    const result = resultOf(await post(fetcher, 'server/discover'))
    expect(Object.keys(result.capabilities as object).sort()).toEqual(['logging', 'tools'])
    for (const method of ['prompts/list', 'resources/read', 'completion/complete']) {
      const answer = await post(fetcher, method, { uri: 'x://y' })
      expect(answer.status).toBe(404)
      expect(errorOf(answer).code).toBe(-32601)
    }
  })
})
