/**
 * A lean HTTP/1.1 client for the gateway bench: one keep-alive socket, one POST at a time, the answer's
 * body as text (`content-length` or chunked). It is the HTTP counterpart of the bench's direct stdio
 * client (a line written to a pipe, a line read back), so that "p50 added by the bridge" measures the
 * bridge and the hop, not the client: node:http's client alone spends about 0.08 ms per request on this
 * path (its agent, its parser, its streams), which would otherwise be counted against the bridge.
 * autocannon is a client of the same kind, but it sends one fixed body, and a session routes by id.
 */
import { connect, type Socket } from 'node:net'

const HEADER_END = Buffer.from('\r\n\r\n')
const CRLF = Buffer.from('\r\n')

interface Waiting {
  resolve(text: string): void
  reject(error: Error): void
}

/** What is known of the answer being read: where its body starts, and how it is framed. */
interface Framing {
  readonly status: number
  readonly bodyStart: number
  /** `undefined` for a chunked body. */
  readonly length: number | undefined
}

export class LeanHttpConnection {
  readonly #url: URL
  readonly #socket: Socket
  #buffer: Buffer = Buffer.alloc(0)
  #waiting: Waiting | undefined
  #framing: Framing | undefined
  #failure: Error | undefined

  constructor(url: string) {
    this.#url = new URL(url)
    this.#socket = connect(Number(this.#url.port), this.#url.hostname)
    this.#socket.setNoDelay(true)
    const fail = (error: Error): void => {
      this.#failure ??= error
      this.#waiting?.reject(this.#failure)
      this.#waiting = undefined
    }
    this.#socket.on('data', (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk])
      try {
        this.#read()
      } catch (error) {
        // An answer this client cannot frame stops the run through the call that waits for it.
        fail(error instanceof Error ? error : new Error(String(error)))
        this.#socket.destroy()
      }
    })
    this.#socket.on('error', fail)
    this.#socket.on('close', () => fail(new Error(`${url}: the server closed the connection`)))
  }

  /** POSTs `body`; resolves with the answer's body, rejects on a status other than 200. */
  post(body: string, headers: Readonly<Record<string, string>>): Promise<string> {
    if (this.#failure) return Promise.reject(this.#failure)
    if (this.#waiting) return Promise.reject(new Error('one request at a time on a lean connection'))
    let head = `POST ${this.#url.pathname} HTTP/1.1\r\nhost: ${this.#url.host}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject }
      // One write, so the request leaves in one segment (no delay is set) and is read in one go.
      this.#socket.write(`${head}\r\n${body}`)
    })
  }

  close(): void {
    this.#socket.destroy()
  }

  #read(): void {
    this.#framing ??= this.#frame()
    if (!this.#framing) return
    const { status, bodyStart, length } = this.#framing
    const body = length === undefined ? this.#unchunk(bodyStart) : this.#whole(bodyStart, length)
    if (!body) return
    this.#buffer = this.#buffer.subarray(body.end)
    this.#framing = undefined
    const waiting = this.#waiting
    this.#waiting = undefined
    if (status === 200) waiting?.resolve(body.text)
    else waiting?.reject(new Error(`HTTP ${status}: ${body.text}`))
  }

  #frame(): Framing | undefined {
    const end = this.#buffer.indexOf(HEADER_END)
    if (end === -1) return undefined
    const head = this.#buffer.subarray(0, end).toString('latin1')
    const status = Number(head.slice(9, 12))
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1]
    if (length === undefined && !/\r\ntransfer-encoding: *chunked/i.test(head))
      throw new Error(`an answer with neither content-length nor chunks: ${head}`)
    return {
      status,
      bodyStart: end + HEADER_END.length,
      length: length === undefined ? undefined : Number(length),
    }
  }

  #whole(start: number, length: number): { text: string; end: number } | undefined {
    if (this.#buffer.length < start + length) return undefined
    return { text: this.#buffer.toString('utf8', start, start + length), end: start + length }
  }

  /** The chunked body from `start`, once its last (empty) chunk is in; trailers are not expected. */
  #unchunk(start: number): { text: string; end: number } | undefined {
    const parts: Buffer[] = []
    let at = start
    for (;;) {
      const lineEnd = this.#buffer.indexOf(CRLF, at)
      if (lineEnd === -1) return undefined
      const size = Number.parseInt(this.#buffer.toString('latin1', at, lineEnd), 16)
      const dataStart = lineEnd + CRLF.length
      if (this.#buffer.length < dataStart + size + CRLF.length) return undefined
      if (size === 0) return { text: Buffer.concat(parts).toString('utf8'), end: dataStart + CRLF.length }
      parts.push(this.#buffer.subarray(dataStart, dataStart + size))
      at = dataStart + size + CRLF.length
    }
  }
}
