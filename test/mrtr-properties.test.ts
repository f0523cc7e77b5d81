/** Properties of requestState sealing and URI template matching, over generated inputs. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileUriTemplate, createFetchHandler, defineResource, defineServer } from '../src/index.js'
import { canonicalJson, RequestStateCodec, type StateBinding } from '../src/protocol/mrtr/state.js'
import { meta, post, resultOf } from './helpers/http.js'

const binding: StateBinding = { method: 'tools/call', name: 't', argsDigest: 'd', principal: undefined }
const codec = new RequestStateCodec({ secret: 'property-test-secret-value' })

describe('requestState sealing', () => {
  it('opens what it sealed, answers and data intact', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue(), async (answers, data) => {
        const state = await codec.seal(binding, { answers, data })
        const opened = await codec.open(state, binding)
        expect(canonicalJson(opened.answers)).toBe(canonicalJson(JSON.parse(JSON.stringify(answers))))
      }),
      { numRuns: 100 },
    )
  })

  it('rejects every single-character change of a sealed state', async () => {
    const state = await codec.seal(binding, { answers: { q: { action: 'accept', content: { ok: true } } } })
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: state.length - 1 }),
        fc.constantFrom(...'ABCabc019-_.='.split('')),
        async (index, char) => {
          const changed = state.slice(0, index) + char + state.slice(index + 1)
          fc.pre(changed !== state)
          await expect(codec.open(changed, binding)).rejects.toMatchObject({ code: -32602 })
        },
      ),
      { numRuns: 200 },
    )
  })

  it('rejects arbitrary strings without crashing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (junk) => {
        await expect(codec.open(junk, binding)).rejects.toMatchObject({ code: -32602 })
      }),
      { numRuns: 200 },
    )
  })

  it('digests arguments independently of key order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const reversed = Object.fromEntries(Object.entries(value).reverse())
        expect(canonicalJson(reversed)).toBe(canonicalJson(value))
      }),
    )
  })
})

describe('URI templates', () => {
  it('recovers any value a simple expansion produced', () => {
    const template = compileUriTemplate('x://items/{id}/data{?page}')
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), (id, page) => {
        const uri = `x://items/${encodeURIComponent(id)}/data?page=${encodeURIComponent(page)}`
        expect(template.match(uri)).toEqual({ id, page })
      }),
    )
  })
})

describe('multi-round-trip resources/read', () => {
  it('asks for consent by URL elicitation, then reads', async () => {
    const server = defineServer({
      name: 's',
      version: '1',
      requestState: { secret: 'resource-consent-secret' },
      resources: [
        defineResource({
          uri: 'vault://token',
          name: 'token',
          read: async (ctx) => {
            const consent = await ctx.input.elicitUrl(
              { message: 'Sign in to the vault', url: 'https://vault.example.com/consent' },
              'consent',
            )
            return consent.action === 'accept' ? 'granted' : 'refused'
          },
        }),
      ],
    })
    const fetcher = createFetchHandler(server)
    const withUrl = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } })
    const first = resultOf(await post(fetcher, 'resources/read', { uri: 'vault://token' }, { meta: withUrl }))
    expect(first.resultType).toBe('input_required')
    const second = resultOf(
      await post(
        fetcher,
        'resources/read',
        {
          uri: 'vault://token',
          inputResponses: { consent: { action: 'accept' } },
          requestState: first.requestState,
        },
        { meta: withUrl },
      ),
    )
    expect(second).toMatchObject({
      resultType: 'complete',
      contents: [{ uri: 'vault://token', text: 'granted' }],
    })
  })
})
