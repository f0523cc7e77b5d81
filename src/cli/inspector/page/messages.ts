/** The "network tab": every JSON-RPC message with its HTTP headers; and the history of calls. */
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import type { VNode } from 'preact'
import { isObject, type JsonObject } from './api.js'
import { visibleJson, visibleText } from '../../../wire/visible-text.js'
import { JsonTree } from './result-view.js'
import type { HistoryEntry } from './tools.js'

export interface LoggedMessage {
  readonly seq: number
  readonly at: string
  readonly direction: 'out' | 'in'
  readonly message: unknown
  readonly http?: JsonObject
}

function summary(message: unknown): string {
  if (!isObject(message)) return visibleText(String(message).slice(0, 120))
  if (typeof message.method === 'string')
    return `${visibleText(message.method)}${message.id !== undefined ? ` #${visibleText(String(message.id))}` : ''}`
  if (message.id !== undefined)
    return `${'error' in message ? 'error' : 'result'} #${visibleText(String(message.id))}`
  return 'message'
}

export function Messages({ entries }: { entries: LoggedMessage[] }): VNode {
  const [filter, setFilter] = useState('')
  const shown = entries.filter((entry) => summary(entry.message).includes(filter))
  return html`<section aria-label="Messages" class="messages-log">
    <label class="search"
      >Filter messages
      <input
        type="search"
        value=${filter}
        onInput=${(e: Event) => setFilter((e.target as HTMLInputElement).value)}
    /></label>
    <ol>
      ${shown.map(
        (entry) =>
          html`<li key=${entry.seq} class=${`msg ${entry.direction}`}>
            <details>
              <summary>
                <span class="dir">${entry.direction === 'out' ? '→' : '←'}</span> ${summary(entry.message)}
                <span class="sub"
                  >${entry.at.slice(11, 23)}${entry.http && typeof entry.http.status === 'number' ? ` HTTP ${entry.http.status}` : ''}</span
                >
              </summary>
              <${JsonTree} value=${entry.message} />
              ${
                entry.http
                  ? html`<div class="http">
                      <h4>HTTP</h4>
                      <${JsonTree} value=${entry.http} />
                    </div>`
                  : ''
              }
            </details>
          </li>`,
      )}
    </ol>
  </section>`
}

export function History({
  entries,
  onLoad,
}: {
  entries: HistoryEntry[]
  onLoad: (entry: HistoryEntry) => void
}): VNode {
  if (entries.length === 0) return html`<p class="hint">No calls yet.</p>`
  return html`<section aria-label="History">
    <ol class="history">
      ${entries.map(
        (entry, index) =>
          html`<li key=${index}>
            <button type="button" class="item" onClick=${() => onLoad(entry)}>
              ${visibleText(entry.tool)}
            </button>
            <span
              class=${entry.outcome.error !== undefined || entry.outcome.result?.isError === true ? 'bad' : 'good'}
            >
              ${entry.outcome.error !== undefined ? 'failed' : entry.outcome.result?.isError === true ? 'isError' : 'ok'}</span
            >
            <span class="sub">${entry.at.slice(11, 19)} ${entry.outcome.durationMs ?? ''} ms</span>
            <code class="sub">${visibleJson(entry.args, 0)}</code>
          </li>`,
      )}
    </ol>
  </section>`
}
