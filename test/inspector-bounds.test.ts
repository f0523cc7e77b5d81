/**
 * The inspector's bounds (docs/security.md, Guard table), pushed past: the message log keeps only the last
 * `DEFAULT_MAX_LOGGED_MESSAGES` messages, a message body is cut at `MAX_LOGGED_BODY_CHARS`, and no more than
 * `MAX_PENDING_INPUTS` questions wait for the user at once. Counted, never timed.
 */
import { describe, expect, it } from 'vitest'
import { InputBroker, MAX_PENDING_INPUTS } from '../src/cli/inspector/input-broker.js'
import {
  DEFAULT_MAX_LOGGED_MESSAGES,
  MAX_LOGGED_BODY_CHARS,
  MessageLog,
} from '../src/cli/inspector/message-log.js'

describe('inspector bounds', () => {
  it('keeps only the last messages of the log, and cuts a huge body', async () => {
    const log = new MessageLog()
    for (let n = 0; n < DEFAULT_MAX_LOGGED_MESSAGES + 500; n++) log.add('in', { n })
    expect(log.entries()).toHaveLength(DEFAULT_MAX_LOGGED_MESSAGES)
    expect(log.entries()[0]?.message).toEqual({ n: 500 })

    const fetchLog = new MessageLog()
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      result: { text: 'x'.repeat(MAX_LOGGED_BODY_CHARS) },
    })
    const recording = fetchLog.recordingFetch(
      async () => new Response(huge, { headers: { 'content-type': 'application/json' } }),
    )
    const response = await recording(
      new Request('http://127.0.0.1:1/mcp', {
        method: 'POST',
        body: '{}',
        headers: { authorization: 'Bearer secret' },
      }),
    )
    expect(await response.text()).toBe(huge) // the client still gets all of it
    const answer = fetchLog.entries().at(-1)
    expect(typeof answer?.message).toBe('string')
    expect(String(answer?.message)).toMatch(/… \(cut\)$/)
    expect(String(answer?.message).length).toBeLessThan(MAX_LOGGED_BODY_CHARS + 20)
    // Credentials are logged by name only.
    expect(fetchLog.entries()[0]?.http?.requestHeaders.authorization).toBe('(hidden)')
  })

  it('declines a question past the limit of those waiting, and drops a question whose request ends', async () => {
    const events: string[] = []
    const broker = new InputBroker((event) => events.push(event.type))
    const controller = new AbortController()
    const context = { method: 'tools/call', name: 'ask', key: 'k', signal: controller.signal }
    const waiting = Array.from({ length: MAX_PENDING_INPUTS }, () => broker.ask('elicitation', {}, context))
    await expect(broker.ask('elicitation', {}, context)).rejects.toThrow(`more than ${MAX_PENDING_INPUTS}`)
    expect(broker.pending()).toHaveLength(MAX_PENDING_INPUTS)
    const first = broker.pending()[0]!
    expect(broker.answer(first.id, { action: 'accept', content: {} })).toBe(true)
    await expect(waiting[0]).resolves.toEqual({ action: 'accept', content: {} })
    expect(broker.answer(first.id, {})).toBe(false)
    controller.abort()
    await Promise.allSettled(waiting)
    expect(broker.pending()).toHaveLength(0)
    expect(events.filter((type) => type === 'input-done')).toHaveLength(MAX_PENDING_INPUTS)
  })
})
