/** How the CLI shows results: text plainly, structured content as pretty JSON, media saved to files. */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CallToolResult, ContentBlock, ProgressNotificationParams } from '../../client/index.js'
import * as prompts from '@clack/prompts'

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

function save(dir: string, stem: string, mimeType: string | undefined, base64: string): string {
  const extension = (mimeType && EXTENSIONS[mimeType]) ?? 'bin'
  const path = join(dir, `${stem}.${extension}`)
  writeFileSync(path, Buffer.from(base64, 'base64'))
  return path
}

/** The lines to print for a result; media blocks are written to `dir`. */
export function renderResult(result: CallToolResult, dir: string, stem: string): string[] {
  const lines: string[] = []
  if (result.structuredContent !== undefined && result.isError !== true) {
    lines.push(JSON.stringify(result.structuredContent, null, 2))
  }
  result.content.forEach((block: ContentBlock, index) => {
    const name = `${stem}-${index + 1}`
    switch (block.type) {
      case 'text':
        // With structured content the text block is usually its serialization; don't print it twice.
        if (result.structuredContent === undefined || result.isError === true) lines.push(block.text)
        break
      case 'image':
      case 'audio':
        lines.push(
          `[${block.type} ${block.mimeType} saved to ${save(dir, name, block.mimeType, block.data)}]`,
        )
        break
      case 'resource_link':
        lines.push(`[link ${block.name}: ${block.uri}]`)
        break
      case 'resource': {
        const resource = block.resource
        if ('text' in resource) lines.push(`[resource ${resource.uri}]`, resource.text)
        else
          lines.push(
            `[resource ${resource.uri} saved to ${save(dir, name, resource.mimeType, resource.blob)}]`,
          )
        break
      }
      default:
        lines.push(JSON.stringify(block))
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
    update: ({ progress, total, message }) => {
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
