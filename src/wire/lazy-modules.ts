/**
 * Dependencies a server may never need, loaded on first need instead of when toolwire is imported: ajv
 * (about a hundred CommonJS files, most of a small server's start-up), the RE2 pattern engine, the LRU
 * cache behind rate limits and the token cache. Node's module loader costs about a millisecond per file.
 *
 * On Node and Bun they load synchronously through `require`, so a schema that must be checked when the
 * server is defined still is. Where `require` cannot reach them (a bundled application, a runtime without
 * `process.getBuiltinModule`) `soon()` imports them in the background with `import()`, which bundlers
 * follow. Code that needs them up front imports them statically and hands them over (`provide`).
 */
type Require = (id: string) => unknown

export class LazyModules<T> {
  #value: T | undefined
  #loading: Promise<void> | undefined
  #importing: Promise<T> | undefined
  readonly #fromRequire: (require: Require) => T
  readonly #fromImport: () => Promise<T>

  constructor(fromRequire: (require: Require) => T, fromImport: () => Promise<T>) {
    this.#fromRequire = fromRequire
    this.#fromImport = fromImport
  }

  /** The modules if already loaded; never loads them. */
  loaded(): T | undefined {
    return this.#value
  }

  /** Hands over modules imported up front. */
  provide(value: T): void {
    this.#value ??= value
  }

  /** The modules now: loaded already, or loaded synchronously where `require` reaches them. */
  now(): T | undefined {
    if (this.#value) return this.#value
    const require = nodeRequire()
    if (!require) return undefined
    try {
      this.#value = this.#fromRequire(require)
    } catch {
      return undefined // not reachable from here (bundled): soon() imports them instead
    }
    return this.#value
  }

  /** Loads the modules now with `import()`, for callers that can wait (an ES module loads fastest so). */
  load(): Promise<T> {
    if (this.#value) return Promise.resolve(this.#value)
    return (this.#importing ??= this.#fromImport().then((value) => (this.#value ??= value)))
  }

  /**
   * Loads the modules soon, off the current task, so the request that first wanted them is answered before
   * the load holds up the thread.
   */
  soon(): Promise<void> {
    if (this.#value) return Promise.resolve()
    this.#loading ??= new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(async () => {
        if (this.now()) return
        const value = await this.#fromImport()
        this.#value ??= value
      })
      .catch(() => {
        // Unavailable here: callers keep to what works without them (the interpreting validator).
      })
    return this.#loading
  }
}

/** CommonJS interop: `require` gives the exports object, `import()` a namespace whose `default` is it. */
export function exportsOf<T>(module: unknown): T {
  const loaded = module as { default?: unknown }
  return (loaded.default ?? loaded) as T
}

/**
 * A CommonJS module for a loader that imports: through `require` where it reaches (Node, Bun), else through
 * `viaImport`. An ES module that `import()`s a CommonJS file makes Node scan the file for its export names
 * with its lexer, whose hot loops V8 then optimises: on a cold start that costs more than the file itself.
 * `viaImport` must name the module literally, so that bundlers see it.
 */
export function commonJs(id: string, viaImport: () => Promise<unknown>): Promise<unknown> {
  const require = nodeRequire()
  if (require) {
    try {
      return Promise.resolve(require(id))
    } catch {
      // not reachable through require (bundled): import it instead
    }
  }
  return viaImport()
}

function nodeRequire(): Require | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  const nodeModule = host?.getBuiltinModule?.('node:module') as
    { createRequire?: (from: string) => Require } | undefined
  try {
    return nodeModule?.createRequire?.(import.meta.url)
  } catch {
    return undefined
  }
}
