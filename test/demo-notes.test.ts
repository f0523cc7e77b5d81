import { describe, expect, it } from 'vitest'
import { createFetchHandler } from '../src/index.js'
import { createDemoServer } from '../src/demo/server.js'
import { errorOf, meta, post, resultOf } from './helpers/http.js'
import { openListen } from './helpers/sse-stream.js'

const FORM = meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } })

describe('demo notebook', () => {
  it('asks with a form, saves, publishes the update, then deletes only after confirmation', async () => {
    const server = createDemoServer()
    const fetcher = createFetchHandler(server)
    const stream = await openListen(fetcher, 'notes', { resourceSubscriptions: ['notes://all'] })
    await stream.next()
    const call = (name: string, extra: Record<string, unknown> = {}) =>
      post(fetcher, 'tools/call', { name, arguments: {}, ...extra }, { meta: FORM })

    const asked = resultOf(await call('add_note', { arguments: { title: 'Milk' } }))
    expect(asked.resultType).toBe('input_required')
    const saved = resultOf(
      await call('add_note', {
        arguments: { title: 'Milk' },
        inputResponses: {
          note_form: { action: 'accept', content: { title: 'Milk', body: '2 litres', tags: 'shop, home' } },
        },
        requestState: asked.requestState,
      }),
    )
    expect(saved.content).toEqual([{ type: 'text', text: 'Saved note 1: Milk' }])
    expect(await stream.next()).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'notes://all' },
    })

    const note = resultOf(await post(fetcher, 'resources/read', { uri: 'notes://note/1' }))
    expect((note.contents as { text: string }[])[0]?.text).toContain('# Milk')
    expect(errorOf(await post(fetcher, 'resources/read', { uri: 'notes://note/9' }))).toMatchObject({
      code: -32602,
      data: { uri: 'notes://note/9' },
    })
    const prompt = resultOf(
      await post(fetcher, 'prompts/get', { name: 'summarize_notes', arguments: { tag: 'shop' } }),
    )
    expect(JSON.stringify(prompt.messages)).toContain('Milk: 2 litres')

    const confirm = resultOf(await call('delete_notes'))
    const kept = resultOf(
      await call('delete_notes', {
        inputResponses: { confirm_delete: { action: 'decline' } },
        requestState: confirm.requestState,
      }),
    )
    expect(kept.content).toEqual([{ type: 'text', text: 'Kept every note.' }])
    const deleted = resultOf(
      await call('delete_notes', {
        inputResponses: { confirm_delete: { action: 'accept', content: { confirm: true } } },
        requestState: confirm.requestState,
      }),
    )
    expect(deleted.content).toEqual([{ type: 'text', text: 'Deleted 1 note(s).' }])
    stream.close()
  })

  it('explains itself when the client cannot show a form', async () => {
    const fetcher = createFetchHandler(createDemoServer())
    const answer = resultOf(
      await post(fetcher, 'tools/call', { name: 'add_note', arguments: { title: 'x' } }),
    )
    expect(answer.isError).toBe(true)
  })
})
