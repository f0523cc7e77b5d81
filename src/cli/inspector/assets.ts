/**
 * Where the page's files are: `dist/inspector-page/`, built by scripts/build.mjs from
 * `src/cli/inspector/page/`. The CLI's code may sit in `dist/cli/` or in a shared chunk, and tests may run it
 * from `src/`, so the folder is looked for upwards from this module.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const PAGE_FOLDER = 'inspector-page'

export function inspectorAssets(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, PAGE_FOLDER), join(dir, 'dist', PAGE_FOLDER)]) {
      if (existsSync(join(candidate, 'app.js'))) return candidate
    }
    if (dirname(dir) === dir) {
      throw new Error(`the inspector page was not built (no ${PAGE_FOLDER}/app.js): run npm run build`)
    }
  }
}
