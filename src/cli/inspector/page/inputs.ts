/**
 * What a server asks the user during a request: an elicitation (a form, or a URL to visit) or a sampling
 * request (answered here by the person, standing in for a model). Each is shown with who asks and why, and
 * nothing is sent until the user answers (client/elicitation §User Interaction Model).
 */
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import type { VNode } from 'preact'
import { api, isObject, type JsonObject } from './api.js'
import { initialValue, SchemaForm } from './schema-form.js'

export interface PendingInput {
  readonly id: string
  readonly kind: 'elicitation' | 'sampling'
  readonly params: JsonObject
  readonly context: { method: string; name?: string }
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '')
const answer = (id: string, body: unknown): Promise<unknown> =>
  api('answer', { id, answer: body as JsonObject })

function Elicitation({ input }: { input: PendingInput }): VNode {
  const params = input.params
  const [value, setValue] = useState<JsonObject>(
    () => (initialValue(params.requestedSchema) as JsonObject | undefined) ?? {},
  )
  const url = str(params.url)
  let host = ''
  try {
    host = url ? new URL(url).host : ''
  } catch {
    host = '(not a valid URL)'
  }
  const safeLink = /^https?:\/\//i.test(url)
  return html`<div>
    <p class="message">${str(params.message)}</p>
    ${
      params.mode === 'url'
        ? html`<p>The server asks you to visit <code>${url}</code> (host <strong>${host}</strong>).</p>
            ${safeLink ? html`<p><a href=${url} target="_blank" rel="noopener noreferrer">Open ${host}</a></p>` : ''}
            <div class="actions">
              <button
                type="button"
                class="primary"
                onClick=${() => void answer(input.id, { action: 'accept' })}
              >
                Done
              </button>
              <button type="button" onClick=${() => void answer(input.id, { action: 'decline' })}>
                Decline
              </button>
              <button type="button" onClick=${() => void answer(input.id, { action: 'cancel' })}>
                Cancel
              </button>
            </div>`
        : html`<form
            onSubmit=${(e: Event) => (e.preventDefault(), void answer(input.id, { action: 'accept', content: value }))}
          >
            <${SchemaForm}
              schema=${params.requestedSchema}
              value=${value}
              idPrefix=${`elicit-${input.id}`}
              onChange=${setValue}
            />
            <div class="actions">
              <button type="submit" class="primary">Accept</button>
              <button type="button" onClick=${() => void answer(input.id, { action: 'decline' })}>
                Decline
              </button>
              <button type="button" onClick=${() => void answer(input.id, { action: 'cancel' })}>
                Cancel
              </button>
            </div>
          </form>`
    }
  </div>`
}

function Sampling({ input }: { input: PendingInput }): VNode {
  const [reply, setReply] = useState('')
  const messages = Array.isArray(input.params.messages) ? input.params.messages : []
  return html`<div>
    ${input.params.systemPrompt ? html`<p class="hint">System prompt: ${str(input.params.systemPrompt)}</p>` : ''}
    <ol class="messages">
      ${messages.map((message) => {
        const content = isObject(message) && isObject(message.content) ? message.content : {}
        return html`<li>
          <strong>${isObject(message) ? str(message.role) : ''}</strong>:
          ${content.type === 'text' ? str(content.text) : JSON.stringify(content)}
        </li>`
      })}
    </ol>
    <form
      onSubmit=${(e: Event) => {
        e.preventDefault()
        void answer(input.id, {
          role: 'assistant',
          content: { type: 'text', text: reply },
          model: 'human (toolwire inspector)',
          stopReason: 'endTurn',
        })
      }}
    >
      <div class="field">
        <label for=${`reply-${input.id}`}>Reply</label>
        <textarea
          id=${`reply-${input.id}`}
          rows="3"
          onInput=${(e: Event) => setReply((e.target as HTMLTextAreaElement).value)}
        ></textarea>
      </div>
      <div class="actions">
        <button type="submit" class="primary">Send reply</button>
        <button type="button" onClick=${() => void answer(input.id, { declined: true })}>Decline</button>
      </div>
    </form>
  </div>`
}

export function PendingInputs({ inputs }: { inputs: PendingInput[] }): VNode | string {
  if (inputs.length === 0) return ''
  return html`<div class="inputs">
    ${inputs.map(
      (input) =>
        html`<section
          key=${input.id}
          role="dialog"
          aria-modal="false"
          aria-label=${input.kind === 'sampling' ? 'Sampling request' : 'Elicitation request'}
          class="input-request"
        >
          <h3>${input.kind === 'sampling' ? 'The server asks for a model reply' : 'The server asks you'}</h3>
          <p class="hint">during ${input.context.method} ${input.context.name ?? ''}</p>
          ${input.kind === 'sampling' ? html`<${Sampling} input=${input} />` : html`<${Elicitation} input=${input} />`}
        </section>`,
    )}
  </div>`
}
