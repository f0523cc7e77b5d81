/**
 * The bounds and checks the page applies to what a tool's view asks of it (guard table, docs/security.md,
 * "inspector tool views"). No DOM here, so they are tested on their own as well as in the browser.
 */

/** The tallest a view may make its frame; a taller view scrolls inside. */
export const MAX_VIEW_HEIGHT_PX = 1200

/** Longest text of a view's message or log line shown on the page. */
export const MAX_NOTICE_CHARS = 500

/** How many of a view's notices stay on the page (the newest). */
export const MAX_NOTICES = 5

/** A height a view reported (`ui/notifications/size-changed`), as the frame takes it. */
export const boundedHeight = (height: number): number =>
  Number.isFinite(height) ? Math.min(MAX_VIEW_HEIGHT_PX, Math.max(0, Math.ceil(height))) : MAX_VIEW_HEIGHT_PX

/** A view's text, cut for the page. */
export const clip = (text: string): string =>
  text.length > MAX_NOTICE_CHARS ? `${text.slice(0, MAX_NOTICE_CHARS)}…` : text

/** An http(s) URL as the URL parser writes it, or undefined for any other scheme or a malformed URL. */
export function webLink(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined
  } catch {
    return undefined
  }
}
