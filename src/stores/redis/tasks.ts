/**
 * Tasks in Redis, so a task created through one instance is polled, answered and cancelled through any
 * other. Creation is one Lua script (the per-owner cap cannot be overrun by two instances at once);
 * every change is a compare-and-swap script on the whole record, retried on conflict, so two instances
 * never both apply one transition.
 *
 * Key layout (every key carries the hash tag `{prefix}`, so the scripts also run on Redis Cluster):
 *   {prefix}:t:<taskId>        string  the task (JSON); Redis TTL = its ttlMs plus `clockSkewMs`
 *   {prefix}:l:<owner>         zset    taskId -> expiry, the owner's unfinished tasks (the cap)
 * Parts are URI-encoded, so a `:` inside an id or an owner key can never make two keys collide.
 */
import { Redis } from 'ioredis'
import type { OwnerKey } from '../../protocol/principal.js'
import {
  applyAnswers,
  applyTransition,
  TERMINAL,
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

// KEYS: task, live set. ARGV: now, taskId, json, key TTL (ms), max live, expiry.
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -1 end
if redis.call('EXISTS', KEYS[1]) == 1 then return -2 end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[2])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
return 1
`

// KEYS: task, live set. ARGV: expected json, next json, taskId, 1 when the task is still unfinished.
const SWAP = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
if ARGV[4] == '0' then redis.call('ZREM', KEYS[2], ARGV[3]) end
return 1
`

type Script = (keys: string[], args: (string | number)[]) => Promise<number>
const MAX_ATTEMPTS = 20

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
    const script = (name: string, lua: string): Script => {
      const command = `toolwireTasks${name}`
      client.defineCommand(command, { numberOfKeys: 2, lua })
      const run = (client as unknown as Record<string, (...args: (string | number)[]) => Promise<number>>)[
        command
      ]!
      return (keys, args) => run.call(client, ...keys, ...args)
    }
    this.#create = script('Create', CREATE)
    this.#swap = script('Swap', SWAP)
  }

  /** Connects (or adopts `client`) and resolves once Redis answers. */
  static async connect(options: RedisTaskStoreOptions = {}): Promise<RedisTaskStore> {
    const owns = options.client === undefined
    const client = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379')
    if (owns) client.on('error', () => {})
    await client.ping()
    return new RedisTaskStore(client, owns, options)
  }

  async create(record: TaskRecord, maxLive: number): Promise<boolean> {
    const expiresAt = record.createdAt + record.ttlMs
    const keyTtl = Math.max(1, expiresAt - this.#now()) + this.#skewMs
    const outcome = await this.#create(this.#keys(record.taskId, record.owner), [
      this.#now(),
      record.taskId,
      JSON.stringify(record),
      keyTtl,
      maxLive,
      expiresAt,
    ])
    if (outcome === -2) throw new Error('task id collision')
    return outcome === 1
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
      const swapped = await this.#swap(this.#keys(taskId, owner), [
        read.json,
        JSON.stringify(next),
        taskId,
        live,
      ])
      if (swapped === 1) return value
    }
    throw new Error(`task ${taskId}: too many concurrent changes`)
  }

  async #read(taskId: string, owner: OwnerKey): Promise<{ task: TaskRecord; json: string } | undefined> {
    const json = await this.#client.get(this.#keys(taskId, owner)[0]!)
    if (json === null) return undefined
    const task = JSON.parse(json) as TaskRecord
    if (task.owner !== owner || task.createdAt + task.ttlMs <= this.#now()) return undefined
    return { task, json }
  }

  #keys(taskId: string, owner: OwnerKey): string[] {
    return [
      `${this.#prefix}:t:${encodeURIComponent(taskId)}`,
      `${this.#prefix}:l:${encodeURIComponent(owner)}`,
    ]
  }
}
