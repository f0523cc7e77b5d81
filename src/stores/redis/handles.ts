/**
 * State handles in Redis, so a handle made through one instance is used through any other. Each operation
 * is one Lua script, so checks and writes are atomic across instances: the per-owner quota cannot be
 * overrun by two instances creating at once, and `swap` is a true compare-and-swap.
 *
 * Key layout (every key carries the hash tag `{prefix}`, so the scripts also run on Redis Cluster, where a
 * script may only touch keys of one slot):
 *   {prefix}:h:<kind>:<id>       hash   owner, data (JSON), ttl (ms), exp (epoch ms)
 *   {prefix}:o:<kind>:<owner>    zset   <id> -> exp, the owner's live handles (the quota)
 *   {prefix}:x                   zset   <kind>:<id>:<owner> -> exp, the expiry index `sweep` walks
 * Parts are URI-encoded, so a `:` inside a kind, an id or an owner can never make two keys collide.
 *
 * Expiry: the scripts compare `exp` with the caller's clock, and every key also gets a Redis TTL of its
 * lifetime plus `clockSkewMs`, so Redis itself drops what nobody touches any more even if nobody sweeps.
 */
import { Redis } from 'ioredis'
import type { OwnerKey } from '../../protocol/principal.js'
import {
  encode,
  type HandleStore,
  HandleLimitError,
  type StoreLimits,
  type SwapOutcome,
} from '../../handles/store.js'

export interface RedisHandleStoreOptions extends StoreLimits {
  /** `redis://host:port/db`; ignored when `client` is given. */
  readonly url?: string
  /** An existing connection (any options, TLS, sentinel …); it stays open on `close()`. */
  readonly client?: Redis
  /** Key prefix shared by the instances of one deployment (default `toolwire:handles`). */
  readonly prefix?: string
  /** Slack added to each key's Redis TTL for clocks of instances that disagree (default 5 000 ms). */
  readonly clockSkewMs?: number
  /** Clock, for tests (default Date.now). */
  readonly now?: () => number
}

/** Shared by the scripts: is the record at KEYS[1] live and owned by ARGV[1] at time ARGV[2]? */
const LIVE = `
local record = redis.call('HMGET', KEYS[1], 'owner', 'data', 'ttl', 'exp')
if not record[1] or record[1] ~= ARGV[1] or tonumber(record[4]) <= tonumber(ARGV[2]) then return false end
`

/** Refreshes a live record: new expiry in the hash, the owner's set and the index; Redis TTLs extended. */
const REFRESH = `
local ttl = tonumber(record[3])
local exp = tonumber(ARGV[2]) + ttl
local keep = ttl + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'exp', exp)
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('ZADD', KEYS[2], exp, ARGV[4])
if redis.call('PTTL', KEYS[2]) < keep then redis.call('PEXPIRE', KEYS[2], keep) end
redis.call('ZADD', KEYS[3], exp, ARGV[5])
`

// KEYS: record, owner set, index. ARGV: owner, now, skew, id, index member, data, ttl, max per owner.
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[8]) then return -1 end
local exp = tonumber(redis.call('HGET', KEYS[1], 'exp') or '0')
if exp > tonumber(ARGV[2]) then return -2 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'data', ARGV[6], 'ttl', ARGV[7], 'exp', 0)
local record = { ARGV[1], ARGV[6], ARGV[7], 0 }
${REFRESH}
return 1
`

// KEYS: record, owner set, index. ARGV: owner, now, skew, id, index member.
const TOUCH = `${LIVE}${REFRESH}
return record[2]
`

// KEYS: record, owner set, index. ARGV: owner, now, skew, id, index member, data, expected data or ''.
// With an expected value the write happens only while the stored data still equals it.
const WRITE = `${LIVE}
if ARGV[7] ~= '' and record[2] ~= ARGV[7] then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[6])
${REFRESH}
return 1
`

// KEYS: record, owner set, index. ARGV: owner, now, skew, id, index member.
const DELETE = `${LIVE}
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[4])
redis.call('ZREM', KEYS[3], ARGV[5])
return 1
`

// KEYS: index. ARGV: now, key prefix, batch size. Drops one batch of expired records; returns how many.
const SWEEP = `
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(members) do
  local kind, id, owner = string.match(member, '^([^:]*):([^:]*):([^:]*)$')
  if kind then
    local record = ARGV[2] .. ':h:' .. kind .. ':' .. id
    local exp = tonumber(redis.call('HGET', record, 'exp') or '0')
    if exp <= tonumber(ARGV[1]) then redis.call('DEL', record) end
    redis.call('ZREM', ARGV[2] .. ':o:' .. kind .. ':' .. owner, id)
  end
  redis.call('ZREM', KEYS[1], member)
end
return #members
`

type Reply = string | number | null
type Script = (keys: string[], args: (string | number)[]) => Promise<Reply>

const SWEEP_BATCH = 500

/**
 * Keeps handles in Redis, shared by every server instance.
 *
 * @example
 * ```ts
 * import { RedisHandleStore } from 'toolwire/redis'
 *
 * const baskets = defineHandles({
 *   kind: 'basket',
 *   createTool: 'basket_create',
 *   store: await RedisHandleStore.connect({ url: process.env.REDIS_URL }),
 * })
 * ```
 */
export class RedisHandleStore implements HandleStore {
  readonly #client: Redis
  readonly #owns: boolean
  readonly #prefix: string
  readonly #maxPerOwner: number
  readonly #skewMs: number
  readonly #now: () => number
  readonly #timer: ReturnType<typeof setInterval>
  readonly #scripts: Record<'create' | 'touch' | 'write' | 'delete' | 'sweep', Script>

  private constructor(client: Redis, owns: boolean, options: RedisHandleStoreOptions) {
    this.#client = client
    this.#owns = owns
    this.#prefix = `{${options.prefix ?? 'toolwire:handles'}}`
    this.#maxPerOwner = options.maxPerOwner ?? 1000
    this.#skewMs = options.clockSkewMs ?? 5000
    this.#now = options.now ?? Date.now
    // Each script is sent once and then run by its SHA (EVALSHA); ioredis resends it if Redis forgot it.
    const script = (name: string, lua: string, keys: number): Script => {
      const command = `toolwireHandles${name}`
      client.defineCommand(command, { numberOfKeys: keys, lua })
      const run = (client as unknown as Record<string, (...args: (string | number)[]) => Promise<Reply>>)[
        command
      ]!
      return (keyList, args) => run.call(client, ...keyList, ...args)
    }
    this.#scripts = {
      create: script('Create', CREATE, 3),
      touch: script('Touch', TOUCH, 3),
      write: script('Write', WRITE, 3),
      delete: script('Delete', DELETE, 3),
      sweep: script('Sweep', SWEEP, 1),
    }
    this.#timer = setInterval(() => void this.sweep().catch(() => {}), options.sweepIntervalMs ?? 60_000)
    this.#timer.unref()
  }

  /** Connects (or adopts `client`) and resolves once Redis answers. */
  static async connect(options: RedisHandleStoreOptions = {}): Promise<RedisHandleStore> {
    const owns = options.client === undefined
    const client = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379')
    // ioredis reconnects by itself; meanwhile operations reject and the tool call reports an error.
    if (owns) client.on('error', () => {})
    await client.ping()
    return new RedisHandleStore(client, owns, options)
  }

  async create(kind: string, id: string, owner: OwnerKey, data: unknown, ttlMs: number): Promise<void> {
    const json = encode(data)
    const outcome = await this.#scripts.create(this.#keys(kind, id, owner), [
      ...this.#args(kind, id, owner),
      json,
      ttlMs,
      this.#maxPerOwner,
    ])
    if (outcome === -1)
      throw new HandleLimitError(`at most ${this.#maxPerOwner} live ${kind} handles per caller`)
    if (outcome === -2) throw new Error('handle id collision')
  }

  async touch(kind: string, id: string, owner: OwnerKey): Promise<unknown> {
    const json = await this.#scripts.touch(this.#keys(kind, id, owner), this.#args(kind, id, owner))
    return typeof json === 'string' ? JSON.parse(json) : undefined
  }

  async update(kind: string, id: string, owner: OwnerKey, data: unknown): Promise<boolean> {
    const args = [...this.#args(kind, id, owner), encode(data), '']
    return (await this.#scripts.write(this.#keys(kind, id, owner), args)) === 1
  }

  async swap(
    kind: string,
    id: string,
    owner: OwnerKey,
    expected: unknown,
    next: unknown,
  ): Promise<SwapOutcome> {
    const args = [...this.#args(kind, id, owner), encode(next), encode(expected)]
    const outcome = await this.#scripts.write(this.#keys(kind, id, owner), args)
    return outcome === 1 ? 'swapped' : outcome === 0 ? 'conflict' : 'gone'
  }

  async delete(kind: string, id: string, owner: OwnerKey): Promise<boolean> {
    return (await this.#scripts.delete(this.#keys(kind, id, owner), this.#args(kind, id, owner))) === 1
  }

  async sweep(): Promise<number> {
    let dropped = 0
    for (;;) {
      const batch = Number(
        await this.#scripts.sweep([`${this.#prefix}:x`], [this.#now(), this.#prefix, SWEEP_BATCH]),
      )
      dropped += batch
      if (batch < SWEEP_BATCH) return dropped
    }
  }

  /** Stops the sweep timer; closes the connection when the store opened it. */
  async close(): Promise<void> {
    clearInterval(this.#timer)
    if (this.#owns) await this.#client.quit().catch(() => this.#client.disconnect())
  }

  #keys(kind: string, id: string, owner: OwnerKey): string[] {
    const [k, i, o] = [kind, id, owner].map(encodeURIComponent) as [string, string, string]
    return [`${this.#prefix}:h:${k}:${i}`, `${this.#prefix}:o:${k}:${o}`, `${this.#prefix}:x`]
  }

  #args(kind: string, id: string, owner: OwnerKey): (string | number)[] {
    const [k, i, o] = [kind, id, owner].map(encodeURIComponent) as [string, string, string]
    return [owner, this.#now(), this.#skewMs, i, `${k}:${i}:${o}`]
  }
}
