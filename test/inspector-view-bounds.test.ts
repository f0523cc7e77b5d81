/**
 * The bounds the inspector page applies to a tool's view (docs/security.md, Guard table, "inspector tool
 * views"), pushed past without a browser: the frame's height, the text of a notice, and the links a view may
 * offer. test/inspector-apps-browser.test.ts pushes past the same bounds from a real view in Chromium.
 */
import { describe, expect, it } from 'vitest'
import {
  boundedHeight,
  clip,
  MAX_NOTICE_CHARS,
  MAX_VIEW_HEIGHT_PX,
  webLink,
} from '../src/cli/inspector/page/app-limits.js'

describe('inspector tool view bounds', () => {
  it('bounds the frame height a view asks for', () => {
    expect(boundedHeight(240.2)).toBe(241)
    expect(boundedHeight(MAX_VIEW_HEIGHT_PX + 1)).toBe(MAX_VIEW_HEIGHT_PX)
    expect(boundedHeight(1e9)).toBe(MAX_VIEW_HEIGHT_PX)
    expect(boundedHeight(-50)).toBe(0)
    expect(boundedHeight(Number.POSITIVE_INFINITY)).toBe(MAX_VIEW_HEIGHT_PX)
    expect(boundedHeight(Number.NaN)).toBe(MAX_VIEW_HEIGHT_PX)
  })

  it('cuts a view’s text at the notice bound', () => {
    expect(clip('short')).toBe('short')
    expect(clip('x'.repeat(MAX_NOTICE_CHARS))).toBe('x'.repeat(MAX_NOTICE_CHARS))
    expect(clip('x'.repeat(MAX_NOTICE_CHARS + 1))).toBe(`${'x'.repeat(MAX_NOTICE_CHARS)}…`)
  })

  it('offers only http and https links', () => {
    expect(webLink('https://example.com/a b')).toBe('https://example.com/a%20b')
    expect(webLink('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/')
    for (const url of ['javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'not a url', 42])
      expect(webLink(url)).toBeUndefined()
  })
})
