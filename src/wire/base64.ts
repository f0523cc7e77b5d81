/**
 * Base64 for bytes, standard and URL-safe (RFC 4648 §4, §5), on web-standard `btoa`/`atob` so it runs on
 * every runtime toolwire supports. One helper for header values, sealed request state and resource blobs.
 */

/** Bytes per `String.fromCharCode` call: large enough to be fast, small enough for the argument limit. */
const CHUNK = 0x8000

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK))
  }
  return btoa(binary)
}

/** Decodes standard Base64; throws on text `atob` refuses. */
export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

/** URL-safe Base64 without padding. */
export function bytesToBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')
}

/** Decodes URL-safe Base64 (padding optional); undefined for anything else. */
export function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined
  try {
    return base64ToBytes(text.replaceAll('-', '+').replaceAll('_', '/'))
  } catch {
    return undefined
  }
}
