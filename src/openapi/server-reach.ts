/**
 * Where a remote document may send the tools' calls. A document fetched from a URL is untrusted input, and
 * its `servers` (document, path item or operation) decide where every call goes: one naming
 * `http://127.0.0.1:6379/` or `http://169.254.169.254/` would have the model's calls reach this machine's
 * services or the cloud metadata endpoint (security best practices §Server-Side Request Forgery (SSRF)).
 * So, for a remote document with no `baseUrl` and no `allowPrivate`, each server URL a tool would call is
 * judged at load by the document loader's address test (wire/private-address.ts): an IP literal or
 * `localhost` as it is, any other name by every address DNS answers now. A name is judged at load only: one
 * that resolves to another address by the time of a call is not caught here (a caller's own `fetch` can).
 */
import { nodeBuiltin } from '../wire/node-builtins.js'
import {
  addressKind,
  isPrivateAddress,
  literalAddress,
  type PrivateAddressTest,
} from '../wire/private-address.js'

/** Distinct server host names looked up in DNS per load; the operations of any further one are refused. */
export const MAX_SERVER_NAMES = 32

const REMOTE =
  'and the document is remote; pass allowPrivate (--allow-private) or baseUrl (--base-url) to call it'

/** The address's kind for a message, also when only a caller's own test calls it private. */
function kindOf(address: string): string {
  const kind = addressKind(address)
  return kind === 'a public address' ? 'an address isPrivateAddress refuses' : kind
}

/**
 * Why a URL's literal host (an IP literal or `localhost`, however spelt: the URL parser has made
 * `0x7f000001` `127.0.0.1`) must not be called, or undefined when it is public or a name.
 */
export function literalRefusal(url: URL, isPrivate: PrivateAddressTest): string | undefined {
  const address = literalAddress(url.hostname)
  if (address === undefined || !isPrivate(address)) return undefined
  return `${url.origin} is ${kindOf(address)}`
}

/** Judges the server URLs of one remote document, each host once. */
export class ServerJudge {
  readonly #isPrivate: PrivateAddressTest
  readonly #timeoutMs: number
  readonly #byHost = new Map<string, Promise<string | undefined>>()
  #names = 0

  constructor(isPrivate: PrivateAddressTest = isPrivateAddress, timeoutMs = 30_000) {
    this.#isPrivate = isPrivate
    this.#timeoutMs = timeoutMs
  }

  /** The refused ones of these server URLs (text, as the tools would call them), each with why. */
  async refusals(servers: Iterable<string>): Promise<Map<string, string>> {
    const judged = await Promise.all(
      [...new Set(servers)].map(async (text) => {
        let url: URL
        try {
          url = new URL(text)
        } catch {
          return [text, undefined] as const // not a URL: the tool is refused for that (url.ts)
        }
        const http = url.protocol === 'http:' || url.protocol === 'https:'
        return [text, http ? await this.refusal(url) : undefined] as const
      }),
    )
    const refused = new Map<string, string>()
    for (const [text, why] of judged) if (why !== undefined) refused.set(text, why)
    return refused
  }

  /**
   * Why the tools may not call `server` (an http(s) URL), or undefined when every address is public.
   * `server http://127.0.0.1:6379 is a loopback address and the document is remote; pass …`
   */
  async refusal(server: URL): Promise<string | undefined> {
    const literal = literalAddress(server.hostname)
    if (literal !== undefined)
      return this.#isPrivate(literal) ? `server ${server.origin} is ${kindOf(literal)} ${REMOTE}` : undefined
    let judged = this.#byHost.get(server.hostname)
    if (judged === undefined) {
      judged =
        ++this.#names > MAX_SERVER_NAMES
          ? Promise.resolve(
              `cannot be judged: the document names more than ${MAX_SERVER_NAMES} server host names to look up,`,
            )
          : this.#resolve(server.hostname)
      this.#byHost.set(server.hostname, judged)
    }
    const why = await judged
    return why === undefined ? undefined : `server ${server.origin} ${why} ${REMOTE}`
  }

  /** Every address DNS answers for `host` now: one private answer among public ones is refused as well. */
  async #resolve(host: string): Promise<string | undefined> {
    const dns = nodeBuiltin('node:dns')
    if (!dns) return undefined // no DNS to ask outside Node: literals only
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.#timeoutMs)
    })
    try {
      const answers = await Promise.race([dns.promises.lookup(host, { all: true }), late])
      // A name that cannot be judged is refused: the calls would go wherever it resolves later.
      if (answers === 'late') return `cannot be judged: ${host} did not resolve within ${this.#timeoutMs} ms,`
      const refused = answers.find(({ address }) => this.#isPrivate(address))
      return refused === undefined ? undefined : `resolves to ${refused.address}, ${kindOf(refused.address)},`
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code
      return `cannot be judged: ${host} does not resolve (${typeof code === 'string' ? code : String(error)}),`
    } finally {
      clearTimeout(timer)
    }
  }
}
