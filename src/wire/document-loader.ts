/**
 * The one way toolwire reads a document from outside at load time (an OpenAPI document and every file or
 * URL its `$ref`s name): what such a document says is untrusted input, so where it may send the loader is
 * confined (security best practices §Server-Side Request Forgery (SSRF)).
 *
 * - A remote (http/https) document reaches only its own origin: never `file:`, never another host.
 * - A local document reaches only files under its own folder (after following links), unless
 *   `allowFilesOutside`; it reaches no URL.
 * - Every address is judged after DNS, at connect time, by the same test as the OAuth client
 *   (private-address.ts): loopback, private, link-local, unspecified … are refused unless `allowPrivate`.
 * - Redirects are followed by hand, each hop judged; sizes, the number of resources and the time are bounded.
 */
import { DocumentLoadError } from './document-load-error.js'
import { guardedGet } from './guarded-get.js'
import { nodeBuiltin } from './node-builtins.js'
import { addressKind, isPrivateAddress, type PrivateAddressTest } from './private-address.js'

/** The bounds of one load: one document and everything its `$ref`s bring in. */
export interface DocumentLimits {
  /** The largest file or response read, in bytes (default 16 MiB). */
  readonly maxBytes: number
  /** All files and responses of one load together, in bytes (default 64 MiB). */
  readonly maxTotalBytes: number
  /** Files and URLs read per load, the document itself included (default 256). */
  readonly maxResources: number
  /** The whole load, every fetch included, in milliseconds (default 30 000). */
  readonly timeoutMs: number
  /** Redirects followed per fetch (default 5). */
  readonly maxRedirects: number
}

export const DOCUMENT_LIMITS: DocumentLimits = {
  maxBytes: 16 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
  maxResources: 256,
  timeoutMs: 30_000,
  maxRedirects: 5,
}

/** Where a load may go beyond the defaults, and its bounds. */
export interface LoadPolicy {
  /** Load from loopback, private, link-local … addresses (a document served on this machine on purpose). */
  readonly allowPrivate?: boolean
  /** Let a local document's `$ref`s read files outside its own folder. */
  readonly allowFilesOutside?: boolean
  /** Which addresses count as private (default `isPrivateAddress`, the OAuth client's test). */
  readonly isPrivateAddress?: PrivateAddressTest
  readonly limits?: Partial<DocumentLimits>
}

/**
 * Reads the resources of one load. `root` is the document's URL: `file:` for a local document (a URL ending
 * in `/` stands for a folder, for a document given as an object), `http:`/`https:` for a remote one.
 */
export class DocumentLoader {
  readonly root: URL
  readonly #policy: LoadPolicy
  readonly #limits: DocumentLimits
  readonly #deadline: AbortSignal
  readonly #read = new Map<string, Promise<Uint8Array>>()
  #bytes = 0
  #folder: Promise<string> | undefined
  /** The first refusal or failure, kept because a parser calling `read` may replace it with its own error. */
  failure: DocumentLoadError | undefined

  constructor(root: URL, policy: LoadPolicy = {}) {
    this.root = root
    this.#policy = policy
    this.#limits = { ...DOCUMENT_LIMITS, ...policy.limits }
    this.#deadline = AbortSignal.timeout(this.#limits.timeoutMs)
  }

  /** The bytes of `target` (absolute URL, or a path resolved against the root), read once per load. */
  read(target: string): Promise<Uint8Array> {
    const url = this.#urlOf(target)
    url.hash = ''
    let bytes = this.#read.get(url.href)
    if (!bytes) {
      if (this.#read.size >= this.#limits.maxResources)
        return this.#fail(
          `the document and its $refs name more than ${this.#limits.maxResources} files or URLs (maxResources)`,
        )
      bytes = this.#load(url).catch((error: unknown) => this.#fail(error))
      this.#read.set(url.href, bytes)
    }
    return bytes
  }

  /** The absolute URL a target names; a path with no scheme (how a parser names files) is a file. */
  #urlOf(target: string): URL {
    // "C:/…" or "C:\…" is a Windows path, not a URL with the scheme "c:".
    if (/^[A-Za-z]:[\\/]/.test(target)) return new URL(`file:///${target.replace(/\\/g, '/')}`)
    try {
      return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(target) ? new URL(target) : new URL(target, 'file:///')
    } catch {
      return new URL('invalid:')
    }
  }

  async #load(url: URL): Promise<Uint8Array> {
    const body = this.root.protocol === 'file:' ? await this.#file(url) : await this.#fetch(url)
    this.#bytes += body.byteLength
    if (this.#bytes > this.#limits.maxTotalBytes)
      throw new DocumentLoadError(
        `the document and the files it references are larger than ${this.#limits.maxTotalBytes} bytes in all (maxTotalBytes)`,
      )
    return body
  }

  async #fetch(url: URL): Promise<Uint8Array> {
    if (url.protocol === 'file:')
      throw new DocumentLoadError(
        `a document loaded from ${this.root.origin} may not read local files (file: refused)`,
      )
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new DocumentLoadError(
        `a $ref to a ${url.protocol} URL is refused; only http(s) and files are read`,
      )
    if (url.origin !== this.root.origin)
      throw new DocumentLoadError(
        `a $ref to ${url.origin} from a document on ${this.root.origin} is refused: a remote document's $refs stay on its own origin`,
      )
    try {
      return await guardedGet(url, {
        check: (address, host) => this.#refusal(address, host),
        maxBytes: this.#limits.maxBytes,
        maxRedirects: this.#limits.maxRedirects,
        signal: this.#deadline,
      })
    } catch (error) {
      if (this.#deadline.aborted) throw this.#timedOut()
      throw error
    }
  }

  #refusal(address: string, host: string): string | undefined {
    const isPrivate = this.#policy.isPrivateAddress ?? isPrivateAddress
    if (this.#policy.allowPrivate === true || !isPrivate(address)) return undefined
    const named = host === address ? address : `${host} (${address})`
    return `${named} is ${addressKind(address)}; refusing to load from it (allowPrivate, --allow-private, loads from this machine or the local network)`
  }

  async #file(url: URL): Promise<Uint8Array> {
    if (url.protocol !== 'file:')
      throw new DocumentLoadError(
        `a $ref to ${url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : `a ${url.protocol} URL`} from a local document is refused: a local document's $refs reach only files`,
      )
    const fs = nodeBuiltin('node:fs/promises')
    const nodeUrl = nodeBuiltin('node:url')
    const nodePath = nodeBuiltin('node:path')
    if (!fs || !nodeUrl || !nodePath) throw new DocumentLoadError('Reading a file needs Node')
    const path = nodeUrl.fileURLToPath(url)
    let real: string
    try {
      real = await fs.realpath(path)
    } catch (error) {
      throw new DocumentLoadError(`cannot read ${path}: ${codeOf(error)}`, { cause: error })
    }
    if (this.#policy.allowFilesOutside !== true) {
      const folder = await (this.#folder ??= this.#rootFolder())
      const relative = nodePath.relative(folder, real)
      if (relative.startsWith('..') || nodePath.isAbsolute(relative))
        throw new DocumentLoadError(
          `${path} is outside the document's folder ${folder}; allowFilesOutside (--allow-files-outside) lets a document read it`,
        )
    }
    const handle = await fs.open(real, 'r').catch((error: unknown) => {
      throw new DocumentLoadError(`cannot read ${path}: ${codeOf(error)}`, { cause: error })
    })
    try {
      const { size } = await handle.stat()
      if (size > this.#limits.maxBytes)
        throw new DocumentLoadError(`${path} is larger than ${this.#limits.maxBytes} bytes (maxBytes)`)
      // Read at most one byte past the bound: a file that grew since stat is still refused, never held whole.
      const buffer = new Uint8Array(Math.min(size, this.#limits.maxBytes) + 1)
      let length = 0
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length)
        if (bytesRead === 0) break
        length += bytesRead
        if (length === buffer.length) break
      }
      if (length > this.#limits.maxBytes)
        throw new DocumentLoadError(`${path} is larger than ${this.#limits.maxBytes} bytes (maxBytes)`)
      return buffer.subarray(0, length)
    } finally {
      await handle.close()
    }
  }

  async #rootFolder(): Promise<string> {
    const fs = nodeBuiltin('node:fs/promises')
    const nodeUrl = nodeBuiltin('node:url')
    const nodePath = nodeBuiltin('node:path')
    if (!fs || !nodeUrl || !nodePath) throw new DocumentLoadError('Reading a file needs Node')
    const root = nodeUrl.fileURLToPath(this.root)
    const folder = this.root.pathname.endsWith('/') ? root : nodePath.dirname(root)
    return fs.realpath(folder)
  }

  #timedOut(): DocumentLoadError {
    return new DocumentLoadError(`the document did not load within ${this.#limits.timeoutMs} ms (timeoutMs)`)
  }

  #fail(error: unknown): Promise<never> {
    const failure =
      error instanceof DocumentLoadError
        ? error
        : new DocumentLoadError(typeof error === 'string' ? error : String(error), { cause: error })
    this.failure ??= failure
    return Promise.reject(failure)
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error)
}
