/**
 * The bearer-auth leg of the benchmark (`--only=auth`): toolwire's bench server with bearer auth on, once
 * with an HS256 secret and once with an RS256 public key (both made fresh here with `jose` and handed to
 * the server through its environment), loaded with a valid token on every request. The raw floor runs in
 * the same alternating rounds with no auth at all (the ratio is what serving plus checking a token costs),
 * and so does toolwire with auth off (what the token check alone costs). Every counted answer must equal the one checked before load.
 */
import { exportSPKI, generateKeyPair, type CryptoKey, SignJWT } from 'jose'
import { randomBytes } from 'node:crypto'
import {
  type BenchServer,
  callMessage,
  headersFor,
  type HttpRunning,
  SERVERS,
  startChecked,
} from './harness.js'

const ISSUER = 'https://issuer.bench.invalid'
const RESOURCE = 'https://bench.invalid/mcp'

export type AuthKind = 'hs256' | 'rs256'
export const AUTH_KINDS: readonly { key: AuthKind; label: string }[] = [
  { key: 'hs256', label: 'tools/call, bearer auth HS256' },
  { key: 'rs256', label: 'tools/call, bearer auth RS256' },
]

/** One measurement, as the benchmark's `load` reports it. */
export interface AuthLoad {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly problems: number
}

export type LoadFn = (
  url: string,
  message: Record<string, unknown>,
  body: string,
  seconds: number,
  headers: Record<string, string>,
) => Promise<AuthLoad>

export interface AuthSamples {
  readonly hs256: AuthLoad[]
  readonly rs256: AuthLoad[]
  /** The raw floor (no auth), measured in the same rounds. */
  readonly floor: AuthLoad[]
  /** toolwire with auth off, in the same rounds: what the token check itself costs. */
  readonly plain: AuthLoad[]
}

interface Target {
  readonly name: string
  readonly running: HttpRunning
  readonly headers: Record<string, string>
  readonly body: string
  readonly samples: AuthLoad[]
}

/** A token the bench server accepts: right issuer and audience, one hour to live. */
function sign(key: CryptoKey | Uint8Array, alg: string): Promise<string> {
  return new SignJWT({ scope: 'tools' })
    .setProtectedHeader({ alg })
    .setIssuer(ISSUER)
    .setAudience(RESOURCE)
    .setSubject('bench-client')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key)
}

async function start(
  server: BenchServer,
  name: string,
  env: Record<string, string>,
  token: string | undefined,
  samples: AuthLoad[],
): Promise<Target> {
  const headers = { ...headersFor(callMessage(7)), ...(token && { authorization: `Bearer ${token}` }) }
  return { name, headers, ...(await startChecked(server, name, env, headers)), samples }
}

/** What a toolwire bench server needs for bearer auth of `kind` (fresh keys), and a token it accepts. */
export async function authSetup(kind: AuthKind): Promise<{ env: Record<string, string>; token: string }> {
  const env = { AUTH_ISSUER: ISSUER, AUTH_RESOURCE: RESOURCE }
  if (kind === 'hs256') {
    const secret = randomBytes(32)
    const token = await sign(new Uint8Array(secret), 'HS256')
    return { env: { ...env, AUTH_HS256_SECRET: secret.toString('base64url') }, token }
  }
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true })
  const token = await sign(privateKey, 'RS256')
  return { env: { ...env, AUTH_RS256_PUBLIC_KEY: await exportSPKI(publicKey) }, token }
}

export async function authRounds(options: {
  readonly rounds: number
  readonly seconds: number
  readonly warmupSeconds: number
  readonly load: LoadFn
}): Promise<AuthSamples> {
  const samples: AuthSamples = { hs256: [], rs256: [], floor: [], plain: [] }
  const [toolwire, , raw] = SERVERS as [BenchServer, BenchServer, BenchServer]
  const [hs256, rs256] = [await authSetup('hs256'), await authSetup('rs256')]
  const targets: Target[] = []
  try {
    targets.push(await start(raw, 'raw node', {}, undefined, samples.floor))
    targets.push(await start(toolwire, 'toolwire no auth', {}, undefined, samples.plain))
    targets.push(await start(toolwire, 'toolwire HS256', hs256.env, hs256.token, samples.hs256))
    targets.push(await start(toolwire, 'toolwire RS256', rs256.env, rs256.token, samples.rs256))
    const message = callMessage(7)
    for (const t of targets)
      await options.load(t.running.url, message, t.body, options.warmupSeconds, t.headers)
    for (let round = 1; round <= options.rounds; round++) {
      for (const t of targets) {
        const result = await options.load(t.running.url, message, t.body, options.seconds, t.headers)
        t.samples.push(result)
        const flag = result.problems > 0 ? `  (${result.problems} non-2xx/errors/mismatches)` : ''
        console.log(
          `round ${round}  tools/call, bearer auth${' '.repeat(25)} ${t.name.padEnd(16)} ${result.rps.toFixed(0)}${flag}`,
        )
      }
    }
  } finally {
    for (const t of targets) await t.running.stop()
  }
  return samples
}
