/**
 * Durable task store on SQLite (better-sqlite3): tasks and their results survive a restart, and several
 * processes on one machine share them (WAL). Every change is a read-modify-write inside an IMMEDIATE
 * transaction, so two instances never both apply one transition. Node only: import it from `toolwire/sqlite`.
 */
import Database from 'better-sqlite3'
import type { OwnerKey } from '../protocol/principal.js'
import {
  applyAnswers,
  applyTransition,
  type CreateOutcome,
  type TaskLimits,
  type TaskRecord,
  type TaskStore,
  type TaskTransition,
  utf8Length,
} from '../features/tasks/store.js'

export interface SqliteTaskStoreOptions {
  /** Clock, for tests (default Date.now). */
  readonly now?: () => number
  /** How often expired tasks are deleted (default 60 s); reads never return them anyway. */
  readonly sweepIntervalMs?: number
}

const LIVE = "status IN ('working', 'input_required')"

/**
 * Keeps tasks in a SQLite file: they survive restarts and are shared by the processes on one machine.
 *
 * @example
 * ```ts
 * import { SqliteTaskStore } from 'toolwire/sqlite'
 *
 * const server = defineServer({ name: 'reports', version: '1.0.0', tasks: { store: new SqliteTaskStore('tasks.db') } })
 * ```
 */
export class SqliteTaskStore implements TaskStore {
  readonly #db: Database.Database
  readonly #now: () => number
  readonly #timer: ReturnType<typeof setInterval>
  readonly #insert: Database.Statement
  readonly #tally: Database.Statement
  readonly #select: Database.Statement
  readonly #write: Database.Statement
  readonly #sweep: Database.Statement

  /** `file` is a path (created when missing) or `:memory:`. */
  constructor(file: string, options: SqliteTaskStoreOptions = {}) {
    const db = (this.#db = new Database(file))
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('busy_timeout = 5000')
    db.exec(`
      CREATE TABLE IF NOT EXISTS toolwire_tasks (
        id TEXT PRIMARY KEY,
        principal TEXT NOT NULL,
        status TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        data TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS toolwire_tasks_expiry ON toolwire_tasks (expires_at);
    `)
    // Files made before tasks were counted by size get the column (0 for their rows: they are owned by keys
    // no caller has any more, and expire with their TTL).
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('toolwire_tasks')
    if (!columns.includes('bytes'))
      db.exec('ALTER TABLE toolwire_tasks ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0')
    // One owner's tallies are read from this index alone: creating a task visits at most the owner's own
    // stored tasks (bounded by `maxStored`), however many other tasks the file holds.
    db.exec(`
      DROP INDEX IF EXISTS toolwire_tasks_principal;
      CREATE INDEX IF NOT EXISTS toolwire_tasks_owner ON toolwire_tasks (principal, expires_at, status, bytes);
    `)
    this.#now = options.now ?? Date.now
    this.#insert = db.prepare(
      'INSERT INTO toolwire_tasks (id, principal, status, expires_at, bytes, data) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.#tally = db.prepare(
      `SELECT count(*) AS stored, coalesce(sum(${LIVE}), 0) AS live, coalesce(sum(bytes), 0) AS bytes
       FROM toolwire_tasks WHERE principal = ? AND expires_at > ?`,
    )
    this.#select = db
      .prepare('SELECT data FROM toolwire_tasks WHERE id = ? AND principal = ? AND expires_at > ?')
      .pluck()
    this.#write = db.prepare('UPDATE toolwire_tasks SET status = ?, bytes = ?, data = ? WHERE id = ?')
    this.#sweep = db.prepare('DELETE FROM toolwire_tasks WHERE expires_at <= ?')
    this.#timer = setInterval(() => this.#sweep.run(this.#now()), options.sweepIntervalMs ?? 60_000)
    this.#timer.unref()
  }

  create(record: TaskRecord, limits: TaskLimits): Promise<CreateOutcome> {
    const now = this.#now()
    const json = JSON.stringify(record)
    const bytes = utf8Length(json)
    const insert = this.#db.transaction((): CreateOutcome => {
      const tally = this.#tally.get(record.owner, now) as { stored: number; live: number; bytes: number }
      if (tally.live >= limits.maxLive) return 'live'
      if (tally.stored >= limits.maxStored) return 'stored'
      if (tally.bytes + bytes > limits.maxStoredBytes) return 'bytes'
      const expiresAt = record.createdAt + record.ttlMs
      this.#insert.run(record.taskId, record.owner, record.status, expiresAt, bytes, json)
      return 'created'
    })
    return Promise.resolve(insert.immediate())
  }

  get(taskId: string, owner: OwnerKey): Promise<TaskRecord | undefined> {
    return Promise.resolve(this.#read(taskId, owner))
  }

  transition(taskId: string, owner: OwnerKey, change: TaskTransition): Promise<TaskRecord | undefined> {
    const run = this.#db.transaction((): TaskRecord | undefined => {
      const task = this.#read(taskId, owner)
      if (!task) return undefined
      const next = applyTransition(task, change, this.#now())
      if (next) this.#store(next)
      return next ?? task
    })
    return Promise.resolve(run.immediate())
  }

  answer(
    taskId: string,
    owner: OwnerKey,
    answers: Record<string, unknown>,
  ): Promise<{ task: TaskRecord; resume: boolean } | undefined> {
    const run = this.#db.transaction(() => {
      const task = this.#read(taskId, owner)
      if (!task) return undefined
      const outcome = applyAnswers(task, answers, this.#now())
      if (outcome.task !== task) this.#store(outcome.task)
      return outcome
    })
    return Promise.resolve(run.immediate())
  }

  close(): Promise<void> {
    clearInterval(this.#timer)
    this.#db.close()
    return Promise.resolve()
  }

  #read(taskId: string, owner: OwnerKey): TaskRecord | undefined {
    const data = this.#select.get(taskId, owner, this.#now()) as string | undefined
    return data === undefined ? undefined : (JSON.parse(data) as TaskRecord)
  }

  #store(task: TaskRecord): void {
    const json = JSON.stringify(task)
    this.#write.run(task.status, utf8Length(json), json, task.taskId)
  }
}
