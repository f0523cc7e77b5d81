/**
 * Skill file digests: `sha256:` and 64 lowercase hex digits of the file's raw bytes (extensions/skills
 * §Integrity and Verification). Shared by the server, which publishes them, and the client, which checks them.
 */

/** Lowercase hex of the bytes. */
export function bytesToHex(bytes: Uint8Array): string {
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
}

/** The digest string of the bytes, with Web Crypto (any runtime). */
export async function skillDigest(bytes: Uint8Array): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)
  return `sha256:${bytesToHex(new Uint8Array(hash))}`
}

/** The form every digest must have. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/

/**
 * The Skills extension's identifier, as capabilities name it (extensions/skills §Extension Identifier).
 *
 * @example
 * ```ts
 * const offersSkills = SKILLS_EXTENSION in ((await client.discover()).capabilities.extensions ?? {})
 * ```
 */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills'
