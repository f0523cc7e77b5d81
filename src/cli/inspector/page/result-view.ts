/**
 * A tool's result: each content block by its type (one renderer per type in `BLOCK_RENDERERS`, so a new kind
 * of block is one entry), `structuredContent` as a tree with the outputSchema verdict, and `isError`.
 * Images and audio are shown from data: URLs only, and only for media types on an allowlist (an SVG could carry
 * script; an unknown type is shown as its size).
 */
import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { isObject, type JsonObject } from './api.js'
import { visibleJson, visibleText } from '../../../wire/visible-text.js'
import { Markdown } from './markdown.js'

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif'])
const AUDIO_TYPES = new Set([
  'audio/wav',
  'audio/x-wav',
  'audio/mpeg',
  'audio/mp3',
  'audio/ogg',
  'audio/webm',
  'audio/flac',
])
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

const str = (value: unknown): string => (typeof value === 'string' ? value : '')

function media(block: JsonObject, allowed: Set<string>): string | undefined {
  const type = str(block.mimeType).toLowerCase()
  const data = str(block.data)
  return allowed.has(type) && BASE64.test(data) ? `data:${type};base64,${data}` : undefined
}

export function JsonTree({ value, label }: { value: unknown; label?: string }): VNode {
  const name = label === undefined ? '' : html`<span class="key">${visibleText(label)}</span>: `
  if (Array.isArray(value) || isObject(value)) {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value)
    return html`<details open class="tree">
      <summary>${name}${Array.isArray(value) ? `[${value.length}]` : `{${entries.length}}`}</summary>
      <div class="tree-children">
        ${entries.map(([k, v]) => html`<${JsonTree} key=${k} label=${k} value=${v} />`)}
      </div>
    </details>`
  }
  return html`<div class="leaf">
    ${name}<span class=${`v-${value === null ? 'null' : typeof value}`}>${visibleJson(value, 0)}</span>
  </div>`
}

function ResourceContents({ contents }: { contents: JsonObject }): VNode {
  const image = media({ mimeType: contents.mimeType, data: contents.blob }, IMAGE_TYPES)
  return html`<div class="resource">
    <div class="uri">
      ${visibleText(str(contents.uri))}
      ${contents.mimeType ? html`<span class="badge">${str(contents.mimeType)}</span>` : ''}
    </div>
    ${
      typeof contents.text === 'string'
        ? html`<pre>${visibleText(contents.text, { multiline: true })}</pre>`
        : image
          ? html`<img src=${image} alt=${`image ${str(contents.uri)}`} />`
          : html`<div class="hint">
              ${typeof contents.blob === 'string' ? `${contents.blob.length} base64 characters` : 'no contents'}
            </div>`
    }
  </div>`
}

type Renderer = (block: JsonObject, context: ResultContext) => VNode

export interface ResultContext {
  /** Reads a resource a resource_link points to. */
  readonly read?: (uri: string) => void
}

export const BLOCK_RENDERERS: Record<string, Renderer> = {
  text: (block) => html`<${Markdown} text=${str(block.text)} />`,
  image: (block) => {
    const src = media(block, IMAGE_TYPES)
    return src
      ? html`<img class="content-image" src=${src} alt=${`image (${str(block.mimeType)})`} />`
      : html`<div class="warning">An image of type ${JSON.stringify(block.mimeType)} is not shown.</div>`
  },
  audio: (block) => {
    const src = media(block, AUDIO_TYPES)
    return src
      ? html`<audio controls src=${src} aria-label=${`audio (${str(block.mimeType)})`}></audio>`
      : html`<div class="warning">Audio of type ${JSON.stringify(block.mimeType)} is not played.</div>`
  },
  resource_link: (block, context) =>
    html`<div class="resource-link">
      <span class="badge">link</span>
      <code>${visibleText(str(block.uri))}</code> ${visibleText(str(block.name))}
      ${block.description ? html`<div class="hint">${visibleText(str(block.description), { multiline: true })}</div>` : ''}
      ${context.read ? html`<button type="button" class="small" onClick=${() => context.read?.(str(block.uri))}>Read ${str(block.uri)}</button>` : ''}
    </div>`,
  resource: (block) =>
    isObject(block.resource)
      ? html`<${ResourceContents} contents=${block.resource} />`
      : html`<div class="warning">An embedded resource without contents.</div>`,
}

export function ContentBlocks({ blocks, context }: { blocks: unknown[]; context: ResultContext }): VNode {
  return html`<div class="blocks">
    ${blocks.map((block, index) => {
      if (!isObject(block))
        return html`<div key=${index} class="warning">A content block that is not an object.</div>`
      const render = BLOCK_RENDERERS[str(block.type)]
      return html`<div key=${index} class=${`block block-${str(block.type)}`}>
        ${render ? render(block, context) : html`<${JsonTree} value=${block} />`}
      </div>`
    })}
  </div>`
}

export interface CallOutcome {
  readonly result?: JsonObject
  readonly outputIssues?: string[] | null
  readonly error?: string
  readonly durationMs?: number
  /** Set by the page: the call's id and arguments (a tool view receives them). */
  readonly callId?: string
  readonly args?: JsonObject
}

export function ResultView({ outcome, context }: { outcome: CallOutcome; context: ResultContext }): VNode {
  if (outcome.error !== undefined) {
    return html`<div class="error" role="alert">Error: ${outcome.error}</div>`
  }
  const result = outcome.result ?? {}
  const content = Array.isArray(result.content) ? result.content : []
  return html`<div>
    ${result.isError === true ? html`<div class="error" role="alert">The tool reported an error (isError).</div>` : ''}
    <${ContentBlocks} blocks=${content} context=${context} />
    ${
      result.structuredContent !== undefined
        ? html`<div class="structured">
            <h4>structuredContent</h4>
            ${
              outcome.outputIssues === null || outcome.outputIssues === undefined
                ? html`<div class="hint">The tool declares no outputSchema.</div>`
                : outcome.outputIssues.length === 0
                  ? html`<div class="ok">Matches the outputSchema.</div>`
                  : html`<div class="error">
                      Does not match the outputSchema: ${outcome.outputIssues.join('; ')}
                    </div>`
            }
            <${JsonTree} value=${result.structuredContent} />
          </div>`
        : ''
    }
    ${outcome.durationMs !== undefined ? html`<div class="hint">${outcome.durationMs} ms</div>` : ''}
  </div>`
}

export { ResourceContents }
