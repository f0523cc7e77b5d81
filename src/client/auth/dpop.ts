/**
 * DPoP (RFC 9449), the optional sender-constraining extension: one ES256 key per token, proofs on token
 * requests (through oauth4webapi) and on every request to the MCP server (§4, with `ath`, §7), and the
 * server-supplied nonces of §8 and §9. The private key is kept with the tokens it binds, so a stored token
 * stays usable in a later process and is useless without its key.
 */
import * as oauth from 'oauth4webapi'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose'

export class DpopKey {
  readonly privateJwk: JWK
  readonly #publicJwk: JWK
  readonly #keyPair: CryptoKeyPair
  #handle: oauth.DPoPHandle | undefined
  /** The last nonce the MCP server asked for (RFC 9449 §9). */
  serverNonce: string | undefined

  private constructor(privateJwk: JWK, publicJwk: JWK, keyPair: CryptoKeyPair) {
    this.privateJwk = privateJwk
    this.#publicJwk = publicJwk
    this.#keyPair = keyPair
  }

  static async generate(): Promise<DpopKey> {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true })
    return DpopKey.fromJwk(await exportJWK(privateKey))
  }

  static async fromJwk(privateJwk: JWK): Promise<DpopKey> {
    const publicJwk: JWK = { ...privateJwk }
    delete publicJwk.d
    const privateKey = (await importJWK(privateJwk, 'ES256', { extractable: false })) as CryptoKey
    const publicKey = (await importJWK(publicJwk, 'ES256', { extractable: true })) as CryptoKey
    return new DpopKey(privateJwk, publicJwk, { privateKey, publicKey })
  }

  /** For oauth4webapi's token requests; it tracks the authorization server's nonces itself. */
  handle(): oauth.DPoPHandle {
    this.#handle ??= oauth.DPoP({}, this.#keyPair)
    return this.#handle
  }

  thumbprint(): Promise<string> {
    return calculateJwkThumbprint(this.#publicJwk, 'sha256')
  }

  /** A fresh proof for one request to the MCP server, bound to the access token by `ath`. */
  async proof(method: string, url: string, accessToken: string): Promise<string> {
    const target = new URL(url)
    const htu = `${target.origin}${target.pathname}` // §4.2: no query, no fragment
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken))
    const ath = Buffer.from(digest).toString('base64url')
    return new SignJWT({
      htm: method,
      htu,
      ath,
      jti: crypto.randomUUID(),
      ...(this.serverNonce === undefined ? {} : { nonce: this.serverNonce }),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: this.#publicJwk })
      .setIssuedAt()
      .sign(this.#keyPair.privateKey)
  }
}

/** Runs a token request again once when the authorization server asks for a DPoP nonce (§8). */
export async function withNonceRetry<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request()
  } catch (error) {
    if (oauth.isDPoPNonceError(error)) return request()
    throw error
  }
}
