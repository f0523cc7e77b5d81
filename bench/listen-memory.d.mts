// Types for bench/listen-memory.mjs, so a test (TypeScript) can count what an open listen stream holds.
export interface ListenShape {
  /** The JSON-RPC `subscriptions/listen` request body for stream `id`. */
  listenBody(id: number): string
  /** The HTTP headers for `body`. */
  headers(body: string): Record<string, string>
  /** The local address the `index`th stream of a batch opens from. */
  address(index: number): string
}
export interface ListenMemory {
  readonly bytesPerStream: number
  /** Bytes per stream by snapshot node type and name (`object Promise`, `closure onAbort`, …). */
  readonly kinds: ReadonlyMap<string, number>
}
export declare function listenMemory(
  script: string,
  streams: number,
  shape: ListenShape,
): Promise<ListenMemory>
export declare function heapObjects(text: string): { total: number; kinds: Map<string, number> }
