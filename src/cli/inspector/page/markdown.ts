/**
 * Markdown from a server, made safe: marked renders it, DOMPurify removes everything that could run (script,
 * event handlers, javascript: URLs, forms, frames). The page's Content-Security-Policy is the second wall.
 * Hidden characters (bidi overrides, controls, other format characters) in the rendered text are shown as
 * escapes, after rendering, so an HTML entity such as `&#x202E;` cannot bring one back.
 */
import DOMPurify from 'dompurify'
import { Marked } from 'marked'
import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { visibleText } from '../../../wire/visible-text.js'

const marked = new Marked({ async: false, gfm: true, breaks: false })

/** Images in markdown only from data: URLs of raster types; a remote one would tell the server who looks. */
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,/i

const TEXT_NODE = 3

DOMPurify.addHook('afterSanitizeElements', (node) => {
  if (node.nodeType === TEXT_NODE) {
    const text = node as unknown as Text
    const visible = visibleText(text.data, { multiline: true })
    if (visible !== text.data) text.data = visible
  }
})

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  for (const attribute of ['title', 'alt']) {
    const value = node.getAttribute(attribute)
    if (value !== null && visibleText(value) !== value) node.setAttribute(attribute, visibleText(value))
  }
  if (node.tagName === 'IMG' && !DATA_IMAGE.test(node.getAttribute('src') ?? '')) {
    node.remove()
    return
  }
  // Links leave the page in a new tab, without the page's URL (which holds the token) as referrer.
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank')
    node.setAttribute('rel', 'noopener noreferrer')
  }
})

export function safeHtml(markdown: string): string {
  const rendered = marked.parse(markdown) as string
  return DOMPurify.sanitize(rendered, {
    USE_PROFILES: { html: true }, // no SVG or MathML from a server
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style'],
  })
}

export function Markdown({ text }: { text: string }): VNode {
  return html`<div class="markdown" dangerouslySetInnerHTML=${{ __html: safeHtml(text) }}></div>`
}
