import { describe, expect, it } from 'vitest'
import { createFetchHandler } from '../src/index.js'
import { createFixtureServer } from './fixtures/conformance/server.js'
import { post, resultOf } from './helpers/http.js'

const fetcher = createFetchHandler(createFixtureServer())

describe('fixture over fetch', () => {
  it('lists tools with cache hints and serverInfo', async () => {
    const answer = await post(fetcher, 'tools/list')
    expect(answer.status).toBe(200)
    const result = resultOf(answer)
    expect(result.resultType).toBe('complete')
    expect(result.cacheScope).toBe('public')
    expect((result.tools as { name: string }[])[0]?.name).toBe('test_simple_text')
  })
})
