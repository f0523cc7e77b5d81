/**
 * The CLI's token store: one JSON file in the user's config folder, readable by the user only (0600 in a
 * 0700 folder), tokens keyed by resource and client registrations by issuer. Writes go to a temporary file
 * that is renamed over the old one, so a crash never leaves half a file.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type { ClientRecord, TokenRecord, TokenStore } from '../../client/index.js'

interface FileContents {
  tokens: Record<string, TokenRecord>
  clients: Record<string, ClientRecord>
}

/** `$TOOLWIRE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/toolwire`, else `~/.config/toolwire`. */
export function defaultCredentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const folder =
    env.TOOLWIRE_CONFIG_DIR ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'toolwire')
  return join(folder, 'credentials.json')
}

export class FileTokenStore implements TokenStore {
  readonly path: string
  #queue: Promise<unknown> = Promise.resolve()

  constructor(path = defaultCredentialsPath()) {
    this.path = path
  }

  async getTokens(resource: string): Promise<TokenRecord | undefined> {
    return (await this.#read()).tokens[resource]
  }
  setTokens(resource: string, tokens: TokenRecord): Promise<void> {
    return this.#update((contents) => void (contents.tokens[resource] = tokens))
  }
  deleteTokens(resource: string): Promise<void> {
    return this.#update((contents) => void delete contents.tokens[resource])
  }
  async getClient(issuer: string): Promise<ClientRecord | undefined> {
    return (await this.#read()).clients[issuer]
  }
  setClient(issuer: string, client: ClientRecord): Promise<void> {
    return this.#update((contents) => void (contents.clients[issuer] = client))
  }
  /** The resources tokens are stored for. */
  async resources(): Promise<string[]> {
    return Object.keys((await this.#read()).tokens)
  }

  async #read(): Promise<FileContents> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { tokens: {}, clients: {} }
      throw error
    }
    try {
      const parsed = JSON.parse(text) as Partial<FileContents>
      return { tokens: { ...parsed.tokens }, clients: { ...parsed.clients } }
    } catch {
      throw new Error(`${this.path} is not valid JSON; remove it to start over`)
    }
  }

  #update(change: (contents: FileContents) => void): Promise<void> {
    const run = this.#queue.then(async () => {
      const contents = await this.#read()
      change(contents)
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 })
      const temporary = `${this.path}.${process.pid}.tmp`
      await writeFile(temporary, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 })
      await chmod(temporary, 0o600)
      await rename(temporary, this.path)
    })
    this.#queue = run.catch(() => undefined)
    return run
  }
}
