/**
 * Markdown from a server, made safe: marked renders it, DOMPurify removes everything that could run (script,
 * event handlers, javascript: URLs, forms, frames). The page's Content-Security-Policy is the second wall.
 */
import DOMPurify from 'dompurify'
import { Marked } from 'marked'
import { html } from 'htm/preact'
import type { VNode } from 'preact'

const marked = new Marked({ async: false, gfm: true, breaks: false })

/** Images in markdown only from data: URLs of raster types; a remote one would tell the server who looks. */
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,/i

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
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
