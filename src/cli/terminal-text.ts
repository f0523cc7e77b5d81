/**
 * Making server-controlled strings safe to print. A server is untrusted: a raw ESC, C1 control, BEL or
 * carriage return in a tool description or result could retitle the window, plant a hyperlink, clear the
 * screen or overwrite what the user just read, and a bidi override can make text read differently from what
 * it is. Every string the CLI prints that came from a server goes through `forTerminal` (or `jsonForTerminal`
 * for JSON output). The rules are those of `wire/visible-text.ts`, which the inspector's page shares.
 */
import { visibleJson, visibleText, type VisibleTextOptions } from '../wire/visible-text.js'

export type TerminalTextOptions = VisibleTextOptions

/**
 * `text` with every control, format (bidi, invisible) and separator character replaced by a visible escape
 * such as `\x1b` or `\u{202E}`. Tab and line feed stay when `multiline`; a carriage return never does.
 */
export function forTerminal(text: string, options: TerminalTextOptions = {}): string {
  return visibleText(text, options)
}

/** `JSON.stringify(value, null, indent)` with every control, format and separator character `\uXXXX`-escaped. */
export function jsonForTerminal(value: unknown, indent = 2): string {
  return visibleJson(value, indent)
}
