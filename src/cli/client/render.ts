/** How the CLI shows results: text plainly, structured content as pretty JSON, media saved to files. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CallToolResult, ContentBlock, ProgressNotificationParams } from '../../client/index.js'
import * as prompts from '@clack/prompts'
import { forTerminal, jsonForTerminal } from '../terminal-text.js'

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'application/pdf': 'pdf',
}

/**
 * A file name made from a server-chosen string (the tool name): only letters, digits, `-`, `_` and inner
 * dots survive, so no `/`, `\\`, `..` or device name can lead outside the folder; empty becomes `result`.
 */
export function safeFileStem(name: string): string {
  const stem = name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+|[._]+$/g, '')
    .slice(0, 64)
  return stem === '' ? 'result' : stem
}

/** Writes into `dir` (created if missing), never over an existing file: `name.png`, `name-2.png`, … */
function save(dir: string, stem: string, mimeType: string | undefined, base64: string): string {
  const extension = (mimeType && EXTENSIONS[mimeType]) ?? 'bin'
  mkdirSync(dir, { recursive: true })
  const data = Buffer.from(base64, 'base64')
  for (let attempt = 1; ; attempt++) {
    const path = join(dir, `${stem}${attempt === 1 ? '' : `-${attempt}`}.${extension}`)
    try {
      writeFileSync(path, data, { flag: 'wx' })
      return path
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 1000) throw error
    }
  }
}

/**
 * Writes a file a server named by a relative path (`references/FORMS.md`) under `dir`: every segment goes
 * through `safeFileStem`, so the path cannot leave `dir`, and an existing file is never overwritten.
 */
export function saveUnder(dir: string, segments: readonly string[], data: Uint8Array): string {
  const safe = segments.map(safeFileStem)
  const folder = join(dir, ...safe.slice(0, -1))
  mkdirSync(folder, { recursive: true })
  const path = join(folder, safe.at(-1) ?? 'result')
  writeFileSync(path, data, { flag: 'wx' })
  return path
}

/** The lines to print for a result; media blocks are written to `dir`. */
export function renderResult(result: CallToolResult, dir: string, toolName: string): string[] {
  const lines: string[] = []
  const text = (value: string): string => forTerminal(value, { multiline: true })
  const stem = safeFileStem(toolName)
  if (result.structuredContent !== undefined && result.isError !== true) {
    lines.push(jsonForTerminal(result.structuredContent))
  }
  result.content.forEach((block: ContentBlock, index) => {
    const name = `${stem}-${index + 1}`
    switch (block.type) {
      case 'text':
        // With structured content the text block is usually its serialization; don't print it twice.
        if (result.structuredContent === undefined || result.isError === true) lines.push(text(block.text))
        break
      case 'image':
      case 'audio':
        lines.push(
          `[${block.type} ${forTerminal(block.mimeType)} saved to ${save(dir, name, block.mimeType, block.data)}]`,
        )
        break
      case 'resource_link':
        lines.push(`[link ${forTerminal(block.name)}: ${forTerminal(block.uri)}]`)
        break
      case 'resource': {
        const resource = block.resource
        if ('text' in resource) lines.push(`[resource ${forTerminal(resource.uri)}]`, text(resource.text))
        else
          lines.push(
            `[resource ${forTerminal(resource.uri)} saved to ${save(dir, name, resource.mimeType, resource.blob)}]`,
          )
        break
      }
      default:
        lines.push(jsonForTerminal(block, 0))
    }
  })
  return lines
}

/** A progress bar on stderr in a terminal; plain progress lines otherwise. */
export function progressReporter(interactive: boolean): {
  update: (progress: ProgressNotificationParams) => void
  stop: () => void
} {
  let bar: ReturnType<typeof prompts.progress> | undefined
  let shown = 0
  return {
    update: ({ progress, total, message: raw }) => {
      const message = raw === undefined ? undefined : forTerminal(raw)
      const text = message ?? (total ? `${progress}/${total}` : `${progress}`)
      if (!interactive) {
        process.stderr.write(
          `progress ${total ? `${progress}/${total}` : progress}${message ? ` ${message}` : ''}\n`,
        )
        return
      }
      if (!bar) {
        bar = prompts.progress({ output: process.stderr, max: 100, style: 'heavy' })
        bar.start(text)
      }
      const percent = total ? Math.min(100, Math.floor((progress / total) * 100)) : shown
      if (percent > shown) {
        bar.advance(percent - shown, text)
        shown = percent
      } else bar.message(text)
    },
    stop: () => {
      bar?.stop(shown >= 100 ? 'done' : 'stopped')
      bar = undefined
    },
  }
}
