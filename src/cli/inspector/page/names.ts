/**
 * Names, titles and descriptions a server chose, shown so they cannot mislead. A bidi override turns
 * `evil\u202Etxt.exe` into `evilexe.txt` on screen, a full-width `ｒｅａｄ_file` looks like `read_file`, and
 * control characters hide; the page is as exposed to these as a terminal. So hidden characters (controls,
 * bidi and other format characters, separators) are shown as escapes (`\u{202E}`), the rules the CLI applies
 * (`wire/visible-text.ts`), and a name that breaks the naming rule carries a warning badge saying why.
 *
 * Tool and prompt names are held to the tool-name rule (server/tools §Tool Names: 1-128 characters of
 * A-Z a-z 0-9 `_` `-` `.`; prompts are invoked by name the same way). Resource names have no such rule in
 * the specification (server/resources: `name` is free text such as "Resource 1"), so only a resource name
 * that hides characters or changes under NFKC normalisation (a full-width or other compatibility look-alike)
 * is marked.
 */
import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { toolNameProblem } from '../../../wire/tool-name.js'
import { escapeOf, hasHiddenCharacters, visibleText } from '../../../wire/visible-text.js'

export type NameKind = 'tool' | 'prompt' | 'resource'

/** A one-line string (a name, a title, a URI) with its hidden characters escaped. */
export const shown = (text: string): string => visibleText(text)

/** Multi-line text (a description, instructions) with its hidden characters escaped; line feeds and tabs stay. */
export const shownLines = (text: string): string => visibleText(text, { multiline: true })

/** Why a name deserves a warning, or undefined when it does not. */
export function nameWarning(name: string, kind: NameKind): string | undefined {
  if (kind !== 'resource') {
    const problem = toolNameProblem(name)
    return (
      problem &&
      `This ${kind} name breaks the MCP tool-name rule (1-128 characters of A-Z a-z 0-9 _ - .): ${problem}`
    )
  }
  if (hasHiddenCharacters(name)) {
    const hidden = [...new Set([...name].filter((char) => visibleText(char) !== char))].slice(0, 8)
    return `This resource name holds hidden characters (shown escaped): ${hidden.map(escapeOf).join(' ')}`
  }
  if (name.normalize('NFKC') !== name)
    return `This resource name has look-alike characters: it reads as "${name.normalize('NFKC')}" once normalised (NFKC)`
  return undefined
}

/**
 * A server-chosen name: escaped, in an element of its own (class `name`), followed, when it breaks the rule,
 * by a warning badge whose title says why (the badge's text is read as part of a button's accessible name).
 */
export function Name(props: { name: string; kind: NameKind }): VNode {
  const warning = nameWarning(props.name, props.kind)
  return html`<span class="name">${shown(props.name)}</span>${
      warning
        ? html` <span class="badge warn" role="img" aria-label="unusual name" title=${warning}
            >⚠ unusual name</span
          >`
        : ''
    }`
}
