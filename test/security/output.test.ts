import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import {
  definePrompt,
  defineResource,
  defineServer,
  defineTool,
  jsonSchema,
  stripControls,
  ToolError,
  toolResult,
} from '../../src/index.js'
import type { SecurityOptions, ToolDefinition } from '../../src/index.js'
import { PNG_1X1, WAV_SILENCE } from '../fixtures/conformance/media.js'
import { cleanEncodedLength, cleanResult, encodedLength, jsonBytes } from '../../src/security/output-guard.js'
import { TEXT_BLOCK_BYTES } from '../../src/features/tools/call.js'
import { jsonText } from '../../src/features/tools/result.js'
import { mayNeedStripping } from '../../src/security/sanitize.js'
import { errorOf, meta, post, resultOf } from '../helpers/http.js'
import { callTool, live, type Live, memoryLogger, textOf } from '../helpers/live.js'

const running: Live[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

async function start(
  tools: ToolDefinition[],
  security: SecurityOptions = {},
  logger = memoryLogger(),
): Promise<Live> {
  const server = await live(
    defineServer({
      name: 'out',
      version: '1',
      tools,
      security: { secretsFromEnv: false, ...security },
      logger,
    }),
  )
  running.push(server)
  return server
}

const HOSTILE =
  'red:\x1b[31mX\x1b[0m link:\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 title:\x1b]0;pwned\x1b\\ bell:\x07 ' +
  'nul:\x00 del:\x7f c1:\x9b2J bidi:\u202eevil\u202c tag:\udb40\udc41\udb40\udc42 cr:a\rb crlf:c\r\nd tab:\te\nok 👨‍👩‍👧'
const CLEAN = 'red:X link:click title: bell: nul: del: c1: bidi:evil tag: cr:ab crlf:c\r\nd tab:\te\nok 👨‍👩‍👧'

describe('text sanitising', () => {
  it('strips terminal escapes and invisible controls, keeping newline, tab, CRLF and emoji joiners', () => {
    expect(stripControls(HOSTILE)).toBe(CLEAN)
    expect(stripControls('plain text\nwith\ttabs')).toBe('plain text\nwith\ttabs')
  })

  it('hands a clean result back untouched, and copies only what it cleans', () => {
    const clean = {
      content: [{ type: 'text' as const, text: 'ok' }],
      structuredContent: { a: ['b', { c: 'd' }] },
    }
    const kept = cleanResult(clean, true, undefined) as { result: unknown; bytes: number }
    expect(kept.result).toBe(clean)
    expect(kept.bytes).toBe(Buffer.byteLength(JSON.stringify(clean)))
    const dirty = { content: [], structuredContent: { keep: { x: 'y' }, fix: ['\x1b[1mz'] } }
    const outcome = cleanResult(dirty, true, undefined) as {
      result: { structuredContent: Record<string, unknown> }
    }
    expect(outcome.result.structuredContent).toEqual({ keep: { x: 'y' }, fix: ['z'] })
    expect(outcome.result.structuredContent.keep).toBe(dirty.structuredContent.keep)
    expect(dirty.structuredContent.fix).toEqual(['\x1b[1mz'])
  })

  it('counts the encoded size in UTF-8 bytes, exactly as JSON.stringify writes it', () => {
    for (const text of ['plain', 'quote " and \\ slash', '\t\n\r\x01', '漢字', '👨‍👩‍👧', '\ud800 lone', 'é']) {
      expect(encodedLength(text)).toBe(Buffer.byteLength(JSON.stringify(text)))
    }
    const mixed = {
      content: [{ type: 'text' as const, text: '漢字 "q"', _meta: { n: 1.5, ok: true, none: null } }],
      _meta: { list: [1, 'two', false], empty: {}, none: [] },
    }
    const cleaned = cleanResult(mixed, true, undefined) as { bytes: number }
    expect(cleaned.bytes).toBe(Buffer.byteLength(JSON.stringify(mixed)))
  })

  it("decides in one pass what stripControls' check decides, and counts what JSON.stringify writes", () => {
    // Any UTF-16 code units (lone surrogates too), and strings built from the edges of every range the
    // check names, so each boundary is met often rather than by luck.
    const edges = [
      0x00, 0x08, 0x09, 0x0a, 0x0b, 0x0d, 0x1f, 0x20, 0x22, 0x5c, 0x7e, 0x7f, 0x80, 0x9f, 0xa0, 0x7ff, 0x800,
      0x2029, 0x202a, 0x202e, 0x202f, 0x2065, 0x2066, 0x2069, 0x206a, 0xd7ff, 0xd800, 0xdb3f, 0xdb40, 0xdb41,
      0xdbff, 0xdc00, 0xdc41, 0xdfff, 0xe000, 0xfff8, 0xfff9, 0xfffb, 0xfffc, 0xffff, 0x61,
    ].map((code) => String.fromCharCode(code))
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
      fc.constantFrom(...edges),
    )
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 24 }), (text) => {
        const bytes = cleanEncodedLength(text)
        expect(bytes < 0).toBe(mayNeedStripping(text))
        if (bytes >= 0) {
          expect(bytes).toBe(Buffer.byteLength(JSON.stringify(text)))
          expect(stripControls(text)).toBe(text)
        }
      }),
      { numRuns: 5000 },
    )
  })

  it("counts a structured result's JSON text copy as measuring the whole block would, hostile text included", () => {
    const edges = [
      '\u0000',
      '\u001b',
      '\r',
      '\u007f',
      '\u009b',
      '\u202e',
      '\udb40',
      '\udc41',
      '"',
      '\\',
      'é',
      '😀',
    ]
    const text = fc.string({ unit: fc.oneof(fc.constantFrom(...edges), fc.string({ maxLength: 1 })) })
    const structured = fc.oneof(fc.jsonValue(), fc.dictionary(text, fc.oneof(text, fc.double())))
    fc.assert(
      fc.property(structured, (value) => {
        const copy = jsonText(value)
        expect(TEXT_BLOCK_BYTES + jsonBytes(copy.text)).toBe(jsonBytes(copy))
      }),
      { numRuns: 3000 },
    )
  })

  it('sanitises text, structured content and its JSON copy in real results', async () => {
    const loud = defineTool({ name: 'loud', handler: () => HOSTILE })
    const shaped = defineTool({
      name: 'shaped',
      outputSchema: jsonSchema<{ note: string }>({
        type: 'object',
        properties: { note: { type: 'string' } },
      }),
      handler: () => ({ note: '\x1b[2Jwiped' }),
    })
    const failing = defineTool({
      name: 'failing',
      handler: () => {
        throw new ToolError('bad \x1b[31minput\x1b[0m')
      },
    })
    const mcp = await start([loud, shaped, failing])
    expect(textOf(resultOf(await callTool(mcp, 'loud')))).toBe(CLEAN)
    const structured = resultOf(await callTool(mcp, 'shaped'))
    expect(structured.structuredContent).toEqual({ note: 'wiped' })
    expect(textOf(structured)).toBe('{"note":"wiped"}')
    const error = resultOf(await callTool(mcp, 'failing'))
    expect(error.isError).toBe(true)
    expect(textOf(error)).toBe('bad input')
  })
})

describe('notification sanitising', () => {
  it('strips control sequences from progress messages and log data', async () => {
    const noisy = defineTool({
      name: 'noisy',
      handler: (_args, ctx) => {
        ctx.progress(1, 2, 'step \x1b[2Jone')
        ctx.log.warning({ note: 'beware \x1b]0;title\x07here' })
        return 'done'
      },
    })
    const mcp = await start([noisy])
    const answer = await callTool(
      mcp,
      'noisy',
      {},
      { meta: meta({ progressToken: 7, 'io.modelcontextprotocol/logLevel': 'debug' }) },
    )
    const params = answer.messages.filter((message) => !('id' in message)).map((message) => message.params)
    expect(params).toEqual([
      { progressToken: 7, progress: 1, total: 2, message: 'step one' },
      { level: 'warning', data: { note: 'beware here' } },
    ])
  })
})

describe('result size cap', () => {
  const big = defineTool({
    name: 'big',
    handler: () => [
      { type: 'text', text: 'a'.repeat(3000) },
      { type: 'text', text: 'b'.repeat(10) },
    ],
  })
  const bigStructured = defineTool({ name: 'big_structured', handler: () => ({ blob: 'x'.repeat(3000) }) })

  it('truncates text with a clear marker by default', async () => {
    const mcp = await start([big, bigStructured], { output: { maxBytes: 1000 } })
    const result = resultOf(await callTool(mcp, 'big'))
    const text = textOf(result)
    expect(text.length).toBeLessThan(1000)
    expect(text.endsWith('[truncated: the result exceeded the 1000-byte limit]')).toBe(true)
    expect(result.isError).toBeUndefined()
    const refused = resultOf(await callTool(mcp, 'big_structured'))
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(
      /^Tool big_structured returned \d+ bytes, over the 1000-byte limit for results/,
    )
  })

  it('refuses instead when configured', async () => {
    const mcp = await start([big], { output: { maxBytes: 1000, oversized: 'refuse' } })
    const result = resultOf(await callTool(mcp, 'big'))
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/over the 1000-byte limit/)
  })
})

describe('binary content checks', () => {
  const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]).toString('base64')
  const tools = [
    defineTool({ name: 'png', handler: () => ({ type: 'image', data: PNG_1X1, mimeType: 'image/png' }) }),
    defineTool({ name: 'wav', handler: () => ({ type: 'audio', data: WAV_SILENCE, mimeType: 'audio/wav' }) }),
    defineTool({
      name: 'bad_base64',
      handler: () => ({ type: 'image', data: 'not base64!!', mimeType: 'image/png' }),
    }),
    defineTool({
      name: 'wrong_family',
      handler: () => ({ type: 'image', data: PNG_1X1, mimeType: 'text/html' }),
    }),
    defineTool({
      name: 'wrong_magic',
      handler: () => ({ type: 'image', data: JPEG, mimeType: 'image/png' }),
    }),
    defineTool({
      name: 'bad_blob',
      handler: () =>
        toolResult({
          content: [
            {
              type: 'resource',
              resource: { uri: 'file:///x', blob: '@@@', mimeType: 'application/octet-stream' },
            },
          ],
        }),
    }),
  ]

  it('passes real media and refuses broken or mislabelled binaries with a reference', async () => {
    const logger = memoryLogger()
    const mcp = await start(tools, {}, logger)
    expect(resultOf(await callTool(mcp, 'png')).isError).toBeUndefined()
    expect(resultOf(await callTool(mcp, 'wav')).isError).toBeUndefined()
    for (const [name, detail] of [
      ['bad_base64', 'image content: data is not valid base64'],
      ['wrong_family', 'image content: mimeType text/html is not an image type'],
      ['wrong_magic', 'image content: data is not image/png'],
      ['bad_blob', 'resource file:///x: data is not valid base64'],
    ] as const) {
      const result = resultOf(await callTool(mcp, name))
      expect(result.isError).toBe(true)
      const text = textOf(result)
      expect(text).toMatch(new RegExp(`^Tool ${name} produced invalid binary content \\(ref [\\w-]+\\)$`))
      const ref = /ref ([\w-]+)/.exec(text)?.[1] as string
      expect(logger.lines.some((line) => line.includes(ref) && line.includes(detail))).toBe(true)
    }
  })
})

describe('internal errors and secrets', () => {
  const SECRET = 'sk-live-4f9a8b7c6d5e'
  const leaky = [
    defineTool({
      name: 'crash',
      handler: () => {
        throw new TypeError(`cannot read db at postgres://admin:${SECRET}@db`)
      },
    }),
    defineTool({ name: 'say_secret', handler: () => `the key is ${SECRET}` }),
    defineTool({ name: 'structured_secret', handler: () => ({ key: SECRET, quoted: `"${SECRET}"` }) }),
    defineTool({
      name: 'error_secret',
      handler: () => {
        throw new ToolError(`upstream refused key ${SECRET}`)
      },
    }),
    defineTool({
      name: 'chatty',
      handler: (_args, ctx) => {
        ctx.log.info(`using ${SECRET}`)
        ctx.progress(1, 2, `step with ${SECRET}`)
        return 'done'
      },
    }),
  ]

  it('hides internal error details behind a correlation id that the log explains', async () => {
    const logger = memoryLogger()
    const mcp = await start(leaky, { secrets: [SECRET] }, logger)
    const result = resultOf(await callTool(mcp, 'crash'))
    expect(result.isError).toBe(true)
    const text = textOf(result)
    expect(text).toMatch(/^Tool crash failed unexpectedly \(ref [\w-]+\)$/)
    const ref = /ref ([\w-]+)/.exec(text)?.[1] as string
    const line = logger.lines.find((entry) => entry.includes(ref)) as string
    expect(line).toContain('cannot read db')
    expect(line).not.toContain(SECRET)
    expect(line).toContain('[redacted]')
  })

  it('never sends a configured secret: results, structured content, tool errors, logs and progress', async () => {
    const mcp = await start(leaky, { secrets: [SECRET] })
    for (const name of ['say_secret', 'structured_secret', 'error_secret', 'chatty']) {
      const answer = await callTool(
        mcp,
        name,
        {},
        { meta: meta({ progressToken: 'p1', 'io.modelcontextprotocol/logLevel': 'debug' }) },
      )
      expect(answer.status).toBe(200)
      expect(answer.text).not.toContain(SECRET)
      expect(answer.text).toContain('[redacted]')
    }
    const structured = resultOf(await callTool(mcp, 'structured_secret'))
    expect(structured.structuredContent).toEqual({ key: '[redacted]', quoted: '"[redacted]"' })
  })

  it('also redacts secrets in protocol errors', async () => {
    const mcp = await start(leaky, { secrets: [SECRET] })
    const answer = await callTool(mcp, SECRET.replace(/-/g, '_'))
    expect(errorOf(answer).message).toMatch(/Unknown tool/)
    const direct = await mcp.call(
      'tools/call',
      { name: 'nope', arguments: {} },
      { headers: { 'mcp-name': SECRET } },
    )
    expect(direct.text).not.toContain(SECRET)
  })
})

describe('prompt and resource sanitising', () => {
  it('cleans prompt messages and resource text the same way as tool results', async () => {
    const server = await live(
      defineServer({
        name: 'text',
        version: '1',
        security: { secretsFromEnv: false },
        prompts: [definePrompt({ name: 'loud', handler: () => HOSTILE })],
        resources: [
          defineResource({ uri: 'notes://loud', name: 'loud', mimeType: 'text/plain', read: () => HOSTILE }),
        ],
      }),
    )
    running.push(server)
    const prompt = resultOf(
      await post((r) => fetch(r), 'prompts/get', { name: 'loud', arguments: {} }, {}, server.url),
    )
    expect(JSON.stringify(prompt.messages)).toContain(JSON.stringify(CLEAN).slice(1, -1))
    expect(JSON.stringify(prompt)).not.toContain('\\u001b')
    const read = resultOf(
      await post((r) => fetch(r), 'resources/read', { uri: 'notes://loud' }, {}, server.url),
    )
    expect((read.contents as { text: string }[])[0]?.text).toBe(CLEAN)
  })
})
