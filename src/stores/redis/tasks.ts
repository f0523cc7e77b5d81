/**
 * Tasks in Redis, so a task created through one instance is polled, answered and cancelled through any
 * other. Creation is one Lua script (the per-owner cap cannot be overrun by two instances at once);
 * every change is a compare-and-swap script on the whole record, retried on conflict, so two instances
 * never both apply one transition.
 *
 * Key layout (every key carries the hash tag `{prefix}`, so the scripts also run on Redis Cluster):
 *   {prefix}:t:<taskId>        string  the task (JSON); Redis TTL = its ttlMs plus `clockSkewMs`
 *   {prefix}:l:<owner>         zset    taskId -> expiry, the owner's unfinished tasks (the live cap)
 *   {prefix}:s:<owner>         zset    taskId -> expiry, every task the owner has stored (the stored cap)
 *   {prefix}:b:<owner>         hash    taskId -> bytes of its JSON as stored
 *   {prefix}:n:<owner>         string  the sum of those bytes (the bytes cap)
 * Parts are URI-encoded, so a `:` inside an id or an owner key can never make two keys collide.
 */
import { Redis } from 'ioredis'
import type { OwnerKey } from '../../protocol/principal.js'
import {
  applyAnswers,
  applyTransition,
  type CreateOutcome,
  TERMINAL,
  type TaskLimits,
  type TaskRecord,
  type TaskStore,
  type TaskTransition,
} from '../../features/tasks/store.js'

export interface RedisTaskStoreOptions {
  /** `redis://host:port/db`; ignored when `client` is given. */
  readonly url?: string
  /** An existing connection; it stays open on `close()`. */
  readonly client?: Redis
  /** Key prefix shared by the instances of one deployment (default `toolwire:tasks`). */
  readonly prefix?: string
  /** Slack added to each key's Redis TTL for clocks of instances that disagree (default 5 000 ms). */
  readonly clockSkewMs?: number
  /** Clock, for tests (default Date.now). */
  readonly now?: () => number
}

// KEYS: task, live set, stored set, bytes per task, bytes in all.
// ARGV: now, taskId, json, key TTL (ms), max live, expiry, max stored, max bytes.
// Only the owner's own expired entries are looked at (each once), never the rest of Redis.
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
for _, id in ipairs(expired) do
  local size = redis.call('HGET', KEYS[4], id)
  if size then redis.call('DECRBY', KEYS[5], size) end
  redis.call('HDEL', KEYS[4], id)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -1 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[7]) then return -3 end
local bytes = string.len(ARGV[3])
if tonumber(redis.call('GET', KEYS[5]) or '0') + bytes > tonumber(ARGV[8]) then return -4 end
if redis.call('EXISTS', KEYS[1]) == 1 then return -2 end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[6], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[2], bytes)
redis.call('INCRBY', KEYS[5], bytes)
for i = 2, 5 do
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[i], ARGV[4]) end
end
return 1
`

// KEYS: task, live set, bytes per task, bytes in all.
// ARGV: expected json, next json, taskId, 1 when the task is still unfinished.
const SWAP = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
if ARGV[4] == '0' then redis.call('ZREM', KEYS[2], ARGV[3]) end
if redis.call('HEXISTS', KEYS[3], ARGV[3]) == 1 then
  local delta = string.len(ARGV[2]) - string.len(ARGV[1])
  redis.call('HINCRBY', KEYS[3], ARGV[3], delta)
  redis.call('INCRBY', KEYS[4], delta)
end
return 1
`

type Script = (keys: string[], args: (string | number)[]) => Promise<number>
const MAX_ATTEMPTS = 20

/**
 * Keeps tasks in Redis, shared by every server instance.
 *
 * @example
 * ```ts
 * import { RedisTaskStore } from 'toolwire/redis'
 *
 * const server = defineServer({
 *   name: 'reports',
 *   version: '1.0.0',
 *   tasks: { store: await RedisTaskStore.connect({ url: process.env.REDIS_URL }) },
 * })
 * ```
 */
export class RedisTaskStore implements TaskStore {
  readonly #client: Redis
  readonly #owns: boolean
  readonly #prefix: string
  readonly #skewMs: number
  readonly #now: () => number
  readonly #create: Script
  readonly #swap: Script

  private constructor(client: Redis, owns: boolean, options: RedisTaskStoreOptions) {
    this.#client = client
    this.#owns = owns
    this.#prefix = `{${options.prefix ?? 'toolwire:tasks'}}`
    this.#skewMs = options.clockSkewMs ?? 5000
    this.#now = options.now ?? Date.now
    const script = (name: string, lua: string, numberOfKeys: number): Script => {
      const command = `toolwireTasks${name}`
      client.defineCommand(command, { numberOfKeys, lua })
      const run = (client as unknown as Record<string, (...args: (string | number)[]) => Promise<number>>)[
        command
      ]!
      return (keys, args) => run.call(client, ...keys, ...args)
    }
    this.#create = script('Create', CREATE, 5)
    this.#swap = script('Swap', SWAP, 4)
  }

  /** Connects (or adopts `client`) and resolves once Redis answers. */
  static async connect(options: RedisTaskStoreOptions = {}): Promise<RedisTaskStore> {
    const owns = options.client === undefined
    const client = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379')
    if (owns) client.on('error', () => {})
    await client.ping()
    return new RedisTaskStore(client, owns, options)
  }

  async create(record: TaskRecord, limits: TaskLimits): Promise<CreateOutcome> {
    const expiresAt = record.createdAt + record.ttlMs
    const keyTtl = Math.max(1, expiresAt - this.#now()) + this.#skewMs
    const [task, live, stored, sizes, total] = this.#keys(record.taskId, record.owner)
    const outcome = await this.#create(
      [task, live, stored, sizes, total],
      [
        this.#now(),
        record.taskId,
        JSON.stringify(record),
        keyTtl,
        limits.maxLive,
        expiresAt,
        limits.maxStored,
        limits.maxStoredBytes,
      ],
    )
    if (outcome === -2) throw new Error('task id collision')
    return outcome === 1 ? 'created' : outcome === -1 ? 'live' : outcome === -3 ? 'stored' : 'bytes'
  }

  async get(taskId: string, owner: OwnerKey): Promise<TaskRecord | undefined> {
    return (await this.#read(taskId, owner))?.task
  }

  transition(taskId: string, owner: OwnerKey, change: TaskTransition): Promise<TaskRecord | undefined> {
    return this.#update(taskId, owner, (task, now) => {
      const next = applyTransition(task, change, now)
      return { next, value: next ?? task }
    })
  }

  answer(
    taskId: string,
    owner: OwnerKey,
    answers: Record<string, unknown>,
  ): Promise<{ task: TaskRecord; resume: boolean } | undefined> {
    return this.#update(taskId, owner, (task, now) => {
      const outcome = applyAnswers(task, answers, now)
      return { next: outcome.task === task ? undefined : outcome.task, value: outcome }
    })
  }

  async close(): Promise<void> {
    if (this.#owns) await this.#client.quit().catch(() => this.#client.disconnect())
  }

  /** Read, compute, compare-and-swap; again from the top when another instance wrote in between. */
  async #update<T>(
    taskId: string,
    owner: OwnerKey,
    compute: (task: TaskRecord, now: number) => { next: TaskRecord | undefined; value: T },
  ): Promise<T | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const read = await this.#read(taskId, owner)
      if (!read) return undefined
      const { next, value } = compute(read.task, this.#now())
      if (!next) return value
      const live = TERMINAL.has(next.status) ? '0' : '1'
      const [task, liveSet, , sizes, total] = this.#keys(taskId, owner)
      const swapped = await this.#swap(
        [task, liveSet, sizes, total],
        [read.json, JSON.stringify(next), taskId, live],
      )
      if (swapped === 1) return value
    }
    throw new Error(`task ${taskId}: too many concurrent changes`)
  }

  async #read(taskId: string, owner: OwnerKey): Promise<{ task: TaskRecord; json: string } | undefined> {
    const json = await this.#client.get(this.#keys(taskId, owner)[0])
    if (json === null) return undefined
    const task = JSON.parse(json) as TaskRecord
    if (task.owner !== owner || task.createdAt + task.ttlMs <= this.#now()) return undefined
    return { task, json }
  }

  /** The task's key, then the owner's: live set, stored set, bytes per task, bytes in all. */
  #keys(taskId: string, owner: OwnerKey): [string, string, string, string, string] {
    const of = `${this.#prefix}:%s:${encodeURIComponent(owner)}`
    return [
      `${this.#prefix}:t:${encodeURIComponent(taskId)}`,
      of.replace('%s', 'l'),
      of.replace('%s', 's'),
      of.replace('%s', 'b'),
      of.replace('%s', 'n'),
    ]
  }
}
