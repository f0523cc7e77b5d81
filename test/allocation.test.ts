/**
 * A guard on the request path's allocation rate, which drives the young generation's growth and so peak
 * RSS under load: toolwire's benchmark server may allocate only a bounded number of bytes per HTTP tools/call
 * beyond the raw node floor (bench/raw-server.mjs) measured the same way in the same run. Allocation is
 * counted, not timed, so the check holds on a busy machine; the bound is about twice today's figure.
 */
import { describe, expect, it } from 'vitest'
import { allocationPerCall } from '../bench/alloc-measure.js'
import { SERVERS } from '../bench/harness.js'

const serverNamed = (name: string) => {
  const server = SERVERS.find((candidate) => candidate.name === name)
  if (!server) throw new Error(`no bench server ${name}`)
  return server
}

describe('allocation per tools/call', () => {
  it('stays within 6 KB per call above the raw node floor', { timeout: 180_000 }, async () => {
    const raw = await allocationPerCall(serverNamed('raw node'))
    const toolwire = await allocationPerCall(serverNamed('toolwire'))
    const extra = toolwire.bytesPerCall - raw.bytesPerCall
    expect(raw.bytesPerCall).toBeGreaterThan(0)
    expect(extra, `toolwire ${toolwire.bytesPerCall} B/call, raw ${raw.bytesPerCall} B/call`).toBeLessThan(
      6 * 1024,
    )
  })
})
