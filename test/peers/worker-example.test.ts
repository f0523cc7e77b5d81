/**
 * examples/worker.ts (the Cloudflare Worker the docs show) runs in workerd through Miniflare, bundled the way wrangler
 * bundles it, and answers the client: worker-example.ts does it and checks itself; its exit code and `workers: ok`
 * line are the pass.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { NODE_22, PEERS, ROOT } from '../helpers/paths.js'

const node =
  Number(process.versions.node.split('.')[0]) >= 22 || !existsSync(NODE_22) ? process.execPath : NODE_22

describe('examples/worker.ts in workerd', () => {
  it('serves a call from the bundled worker', { timeout: 120_000 }, () => {
    const run = spawnSync(node, ['--import', 'tsx', join(PEERS, 'worker-example.ts')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 110_000,
    })
    expect(run.stderr).toBe('')
    expect(run.stdout).toContain('workers: ok')
    expect(run.status).toBe(0)
  })
})
