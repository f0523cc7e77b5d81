/**
 * Durable handle store on SQLite (better-sqlite3): one file, survives restarts, safe for several
 * processes on one machine (WAL). Node only: import it from `toolwire/sqlite`.
 */
import Database from 'better-sqlite3'
import type { OwnerKey } from '../protocol/principal.js'
import { encode, type HandleStore, HandleLimitError, type StoreLimits, type SwapOutcome } from './store.js'

export interface SqliteHandleStoreOptions extends StoreLimits {
  /** Clock, for tests (default Date.now). */
  readonly now?: () => number
}

/**
 * Keeps handles in a SQLite file: they survive restarts and are shared by the processes on one machine.
 *
 * @example
 * ```ts
 * import { SqliteHandleStore } from 'toolwire/sqlite'
 *
 * const baskets = defineHandles({
 *   kind: 'basket',
 *   createTool: 'basket_create',
 *   store: new SqliteHandleStore('state.db'),
 * })
 * ```
 */
export class SqliteHandleStore implements HandleStore {
  readonly #db: Database.Database
  readonly #now: () => number
  readonly #maxPerOwner: number
  readonly #timer: ReturnType<typeof setInterval>
  readonly #insert: Database.Statement
  readonly #count: Database.Statement
  readonly #touch: Database.Statement
  readonly #update: Database.Statement
  readonly #swap: Database.Statement
  readonly #live: Database.Statement
  readonly #delete: Database.Statement
  readonly #sweep: Database.Statement

  /** `file` is a path (created when missing) or `:memory:`. */
  constructor(file: string, options: SqliteHandleStoreOptions = {}) {
    this.#db = new Database(file)
    this.#db.pragma('journal_mode = WAL')
    this.#db.pragma('synchronous = NORMAL')
    this.#db.pragma('busy_timeout = 5000')
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS toolwire_handles (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        owner TEXT NOT NULL,
        data TEXT NOT NULL,
        ttl_ms INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (kind, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS toolwire_handles_owner ON toolwire_handles (kind, owner, expires_at);
      CREATE INDEX IF NOT EXISTS toolwire_handles_expiry ON toolwire_handles (expires_at);
    `)
    this.#now = options.now ?? Date.now
    this.#maxPerOwner = options.maxPerOwner ?? 1000
    const db = this.#db
    this.#insert = db.prepare(
      'INSERT INTO toolwire_handles (kind, id, owner, data, ttl_ms, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.#count = db
      .prepare('SELECT count(*) FROM toolwire_handles WHERE kind = ? AND owner = ? AND expires_at > ?')
      .pluck()
    this.#touch = db
      .prepare(
        'UPDATE toolwire_handles SET expires_at = ? + ttl_ms WHERE kind = ? AND id = ? AND owner = ? AND expires_at > ? RETURNING data',
      )
      .pluck()
    this.#update = db.prepare(
      'UPDATE toolwire_handles SET data = ?, expires_at = ? + ttl_ms WHERE kind = ? AND id = ? AND owner = ? AND expires_at > ?',
    )
    this.#swap = db.prepare(
      'UPDATE toolwire_handles SET data = ?, expires_at = ? + ttl_ms WHERE kind = ? AND id = ? AND owner = ? AND expires_at > ? AND data = ?',
    )
    this.#live = db
      .prepare('SELECT 1 FROM toolwire_handles WHERE kind = ? AND id = ? AND owner = ? AND expires_at > ?')
      .pluck()
    this.#delete = db.prepare(
      'DELETE FROM toolwire_handles WHERE kind = ? AND id = ? AND owner = ? AND expires_at > ?',
    )
    this.#sweep = db.prepare('DELETE FROM toolwire_handles WHERE expires_at <= ?')
    this.#timer = setInterval(() => void this.sweep(), options.sweepIntervalMs ?? 60_000)
    this.#timer.unref()
  }

  async create(kind: string, id: string, owner: OwnerKey, data: unknown, ttlMs: number): Promise<void> {
    const json = encode(data)
    const now = this.#now()
    const insert = this.#db.transaction(() => {
      if ((this.#count.get(kind, owner, now) as number) >= this.#maxPerOwner)
        throw new HandleLimitError(`at most ${this.#maxPerOwner} live ${kind} handles per caller`)
      this.#insert.run(kind, id, owner, json, ttlMs, now + ttlMs)
    })
    insert()
  }

  async touch(kind: string, id: string, owner: OwnerKey): Promise<unknown> {
    const now = this.#now()
    const json = this.#touch.get(now, kind, id, owner, now) as string | undefined
    return json === undefined ? undefined : JSON.parse(json)
  }

  async update(kind: string, id: string, owner: OwnerKey, data: unknown): Promise<boolean> {
    const now = this.#now()
    return this.#update.run(encode(data), now, kind, id, owner, now).changes > 0
  }

  async swap(
    kind: string,
    id: string,
    owner: OwnerKey,
    expected: unknown,
    next: unknown,
  ): Promise<SwapOutcome> {
    const now = this.#now()
    // One statement compares and writes, so another process on the same file cannot slip in between.
    if (this.#swap.run(encode(next), now, kind, id, owner, now, encode(expected)).changes > 0)
      return 'swapped'
    return this.#live.get(kind, id, owner, now) === undefined ? 'gone' : 'conflict'
  }

  async delete(kind: string, id: string, owner: OwnerKey): Promise<boolean> {
    return this.#delete.run(kind, id, owner, this.#now()).changes > 0
  }

  async sweep(): Promise<number> {
    if (!this.#db.open) return 0
    return this.#sweep.run(this.#now()).changes
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    if (this.#db.open) this.#db.close()
  }
}

export { SqliteTaskStore } from './sqlite-tasks.js'
export type { SqliteTaskStoreOptions } from './sqlite-tasks.js'
