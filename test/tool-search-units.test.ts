/** Tool search work on 10,000 tools, counted rather than timed (bench/tool-search.ts gives the timing). */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { connect } from '../src/client/index.js'
import { createFetchHandler, defineServer, defineTool } from '../src/index.js'
import { Bm25Index, tokenize, unicodeWords, type Bm25Field } from '../src/features/tools/bm25.js'

describe('tool search index', () => {
  it('splits names on _ - . and camelCase', () => {
    expect(tokenize('get_user-by.id')).toEqual(['get', 'user', 'by', 'id'])
    expect(tokenize('getUserById HTTPServer v2')).toEqual([
      'get',
      'user',
      'by',
      'id',
      'http',
      'server',
      'v',
      '2',
    ])
  })

  it('builds the index once across 100 searches of 10,000 tools, and once more after a change', async () => {
    const tools = Array.from({ length: 10_000 }, (_, index) =>
      defineTool({
        name: `tool_${index}_${['alpha', 'beta', 'gamma', 'delta'][index % 4]}`,
        description: `Handles item number ${index} of group ${index % 97}.`,
        handler: () => index,
      }),
    )
    const server = defineServer({ name: 'huge', version: '1.0.0', tools, toolSearch: true })
    const client = connect({ url: 'http://localhost/mcp', fetch: createFetchHandler(server) })
    try {
      expect(server.toolSearch?.builds).toBe(0) // built on the first search, not at definition
      for (let round = 0; round < 100; round++) {
        const found = await client.callTool('search_tools', { query: `tool ${round * 97} gamma`, limit: 5 })
        const names = (found.structuredContent as { tools: { name: string }[] }).tools.map(
          (tool) => tool.name,
        )
        expect(names[0]).toBe(`tool_${round * 97}_${['alpha', 'beta', 'gamma', 'delta'][(round * 97) % 4]}`)
      }
      expect(server.toolSearch?.builds).toBe(1)
      server.tools.disable('tool_0_alpha')
      const after = await client.callTool('search_tools', { query: 'tool 0 alpha', limit: 50 })
      const names = (after.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name)
      expect(names).not.toContain('tool_0_alpha')
      expect(server.toolSearch?.builds).toBe(2)
    } finally {
      await client.close()
    }
  })

  it('refuses a query past its bound as a tool error', async () => {
    const tools = Array.from({ length: 40 }, (_, i) => defineTool({ name: `t${i}`, handler: () => i }))
    const server = defineServer({ name: 's', version: '1.0.0', tools, toolSearch: true })
    const client = connect({ url: 'http://localhost/mcp', fetch: createFetchHandler(server) })
    try {
      const long = await client.callTool('search_tools', { query: 'x'.repeat(1001) })
      expect(long.isError).toBe(true)
      expect(server.toolSearch?.builds).toBe(0)
    } finally {
      await client.close()
    }
  })

  it('call_tool goes through input rounds and per-tool rate limits as a direct call does', async () => {
    const filler = Array.from({ length: 40 }, (_, i) => defineTool({ name: `t${i}`, handler: () => i }))
    const deploy = defineTool({
      name: 'deploy',
      inputSchema: z.object({ env: z.string() }),
      handler: async ({ env }, ctx) => {
        const answer = await ctx.input.elicit({
          message: `Deploy to ${env}?`,
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        })
        return answer.action === 'accept' ? `Deploying to ${env}` : 'Cancelled'
      },
    })
    const server = defineServer({
      name: 's',
      version: '1.0.0',
      tools: [...filler, deploy],
      toolSearch: true,
      security: { rateLimit: { tools: { t1: { points: 1, durationMs: 60_000 } } } },
    })
    const asked: string[] = []
    const client = connect(
      { url: 'http://localhost/mcp', fetch: createFetchHandler(server) },
      {
        handlers: {
          elicitation: (params) => {
            asked.push(params.message)
            return Promise.resolve({ action: 'accept', content: { ok: true } })
          },
        },
      },
    )
    try {
      const via = await client.callTool('call_tool', { name: 'deploy', arguments: { env: 'staging' } })
      expect(via.content).toEqual([{ type: 'text', text: 'Deploying to staging' }])
      expect(asked).toEqual(['Deploy to staging?'])
      // The first call of t1 spends its budget through call_tool; the direct call is refused alike, and so
      // is a second call through call_tool.
      expect((await client.callTool('call_tool', { name: 't1' })).content).toEqual([
        { type: 'text', text: '1' },
      ])
      const direct = await client.callTool('t1', {}, { allowUnlisted: true })
      const again = await client.callTool('call_tool', { name: 't1', arguments: {} })
      expect(direct.isError).toBe(true)
      expect(JSON.stringify(direct.content)).toContain('Rate limit for tool t1 reached')
      expect(again).toEqual(direct)
    } finally {
      await client.close()
    }
  })
})

/**
 * BM25 as the formula writes it, over the Unicode-property tokenizer the index used before its ASCII single
 * pass: every document scored, all sorted (score, then document order). The index must rank exactly so.
 */
function referenceRanker(
  documents: Bm25Field[][],
): (query: string, limit: number) => { doc: number; score: number }[] {
  const bags = documents.map((fields) => {
    const counts = new Map<string, number>()
    let length = 0
    for (const field of fields)
      for (const word of unicodeWords(field.text)) {
        counts.set(word, (counts.get(word) ?? 0) + field.weight)
        length += field.weight
      }
    return { counts, length }
  })
  const average = bags.reduce((sum, bag) => sum + bag.length, 0) / bags.length
  return (query, limit) => {
    const words = [...new Set(unicodeWords(query))]
    const idf = new Map(
      words.map((word) => {
        const holding = bags.filter((bag) => bag.counts.has(word)).length
        return [word, Math.log(1 + (bags.length - holding + 0.5) / (holding + 0.5))]
      }),
    )
    return bags
      .map((bag, doc) => {
        let score = 0
        for (const word of words) {
          const count = bag.counts.get(word)
          if (count === undefined) continue
          const norm = 1 - 0.75 + (0.75 * bag.length) / average
          score += ((idf.get(word) as number) * (count * (1.2 + 1))) / (count + 1.2 * norm)
        }
        return { doc, score }
      })
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.doc - b.doc)
      .slice(0, limit)
  }
}

/** A deterministic generator (xorshift), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
}

describe('the single-pass tokenizer', () => {
  it('gives the words of the Unicode-property tokenizer for any ASCII text', () => {
    const next = random(47)
    const alphabet = 'aBzQ09x7Y_-. /:$"\'\tHTTPv2getUserById'
    for (let case_ = 0; case_ < 20_000; case_++) {
      let text = ''
      const length = 1 + Math.floor(next() * 16)
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)]
      expect(tokenize(text), JSON.stringify(text)).toEqual(unicodeWords(text))
    }
    // Every printable ASCII pair and triple around the boundaries that matter.
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))
    for (const a of printable)
      for (const b of printable) expect(tokenize(a + b + 'a')).toEqual(unicodeWords(a + b + 'a'))
  })

  it('hands any other text to the Unicode path: letters and digits of every script', () => {
    for (const text of [
      'Ünïcode_wörd',
      'δοκιμή Tool',
      'ｒｅａｄ_file',
      '日本語ツール',
      'İstanbul',
      'x\u202Ey',
    ]) {
      expect(tokenize(text)).toEqual(unicodeWords(text))
    }
    expect(tokenize('ÜberTool v2')).toEqual(['über', 'tool', 'v', '2'])
  })
})

describe('BM25 ranking', () => {
  it('ranks exactly as the formula over the previous tokenizer, scores and order alike', () => {
    const next = random(2026)
    const words = [
      'invoice',
      'customer',
      'ticket',
      'calendar',
      'HTTPServer',
      'getUserById',
      'v2x',
      'S3Bucket',
      'group',
    ]
    const pick = (): string => words[Math.floor(next() * words.length)] as string
    const documents: Bm25Field[][] = Array.from({ length: 2_000 }, (_, index) => [
      { text: `${pick()}_${index}_${pick()}`, weight: 3 },
      { text: `${pick()} ${pick()}`, weight: 2 },
      { text: `Handles ${pick()} number ${index} in group ${index % 37}. ${pick()}`, weight: 1 },
    ])
    const index = new Bm25Index(documents)
    const reference = referenceRanker(documents)
    for (let case_ = 0; case_ < 200; case_++) {
      const query = `${pick()} ${Math.floor(next() * 2_000)} ${next() < 0.5 ? pick() : 'group'}`
      const limit = 1 + Math.floor(next() * 50)
      expect(index.search(query, limit), query).toEqual(reference(query, limit))
    }
  })
})
