/** The tools tab: search (the list's filter and the server's search_tools), the list (each tool a button named by the tool), its form, Call, Cancel, the result. */
import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import type { VNode } from 'preact'
import { api, isObject, type JsonObject } from './api.js'
import { Markdown } from './markdown.js'
import { initialValue, SchemaForm } from './schema-form.js'
import { JsonTree, ResultView, type CallOutcome, type ResultContext } from './result-view.js'
import { AppFrame, hasView } from './app-frame.js'
import { Name, shown } from './names.js'
import { visibleJson } from '../../../wire/visible-text.js'

export interface Tool extends JsonObject {
  name: string
}

export interface Running {
  progress?: { progress: number; total?: number; message?: string }
  logs: unknown[]
  task?: JsonObject
}

export interface HistoryEntry {
  readonly tool: string
  readonly args: JsonObject
  readonly outcome: CallOutcome
  readonly at: string
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '')
const ICON_SRC = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/

function icon(tool: Tool): VNode | string {
  const icons = Array.isArray(tool.icons) ? tool.icons : []
  const usable = icons.find((i) => isObject(i) && ICON_SRC.test(str(i.src)))
  return isObject(usable) ? html`<img class="icon" src=${str(usable.src)} alt="" />` : ''
}

/** A shell word: single quotes, with any single quote closed, escaped and reopened. */
const shellWord = (text: string): string =>
  /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`

export function callCommand(target: string | null, stdio: boolean, tool: string, args: JsonObject): string {
  const json = `--json-args ${shellWord(JSON.stringify(args))}`
  if (!target) return `toolwire call <target> ${shellWord(tool)} ${json}`
  // A configured server is described as "name (from file)": the name is what the CLI takes.
  const configured = / \(from .+\)$/.exec(target)
  if (configured)
    return `toolwire call ${shellWord(target.slice(0, configured.index))} ${shellWord(tool)} ${json}`
  return stdio
    ? `toolwire call ${shellWord(tool)} ${json} -- ${target}`
    : `toolwire call ${shellWord(target)} ${shellWord(tool)} ${json}`
}

function Annotations({ tool }: { tool: Tool }): VNode | string {
  const annotations = isObject(tool.annotations) ? tool.annotations : {}
  const marks = Object.entries(annotations).filter(([key]) => key !== 'title')
  if (marks.length === 0) return ''
  return html`<div class="badges">
    ${marks.map(([key, value]) => html`<span class="badge" title="annotation from the server (a hint, not a guarantee)">${shown(key)}: ${visibleJson(value, 0)}</span>`)}
  </div>`
}

export function ToolDetail(props: {
  tool: Tool
  running: Running | undefined
  target: string | null
  stdio: boolean
  initialArgs: JsonObject | undefined
  onCall: (tool: string, args: JsonObject) => Promise<void>
  onCancel: () => void
  outcome: CallOutcome | undefined
  context: ResultContext
}): VNode {
  const { tool } = props
  const [args, setArgs] = useState<JsonObject>(
    () => props.initialArgs ?? (initialValue(tool.inputSchema) as JsonObject | undefined) ?? {},
  )
  const [raw, setRaw] = useState<string | undefined>(undefined)
  const [issues, setIssues] = useState<string[]>([])
  const [copied, setCopied] = useState(false)
  const running = props.running
  const command = callCommand(props.target, props.stdio, tool.name, args)

  const call = async (): Promise<void> => {
    let value = args
    if (raw !== undefined) {
      try {
        const parsed: unknown = JSON.parse(raw)
        if (!isObject(parsed)) return setIssues(['the arguments must be a JSON object'])
        value = parsed
        setArgs(parsed)
      } catch (error) {
        return setIssues([`not JSON: ${(error as Error).message}`])
      }
    }
    const { issues: found } = await api<{ issues: string[] }>('validate', { tool: tool.name, args: value })
    setIssues(found)
    if (found.length === 0) await props.onCall(tool.name, value)
  }

  return html`<article class="detail" aria-label=${`Tool ${shown(tool.name)}`}>
    <h2>
      ${icon(tool)}<${Name}
        name=${tool.name}
        kind="tool"
      />${str(tool.title) && str(tool.title) !== tool.name ? html` <small>${shown(str(tool.title))}</small>` : ''}
    </h2>
    ${typeof tool.description === 'string' ? html`<${Markdown} text=${tool.description} />` : ''}
    <${Annotations} tool=${tool} />
    <details class="schema">
      <summary>inputSchema</summary>
      <${JsonTree} value=${tool.inputSchema} />
    </details>
    ${
      tool.outputSchema !== undefined
        ? html`<details class="schema">
            <summary>outputSchema</summary>
            <${JsonTree} value=${tool.outputSchema} />
          </details>`
        : ''
    }
    <form class="call-form" onSubmit=${(e: Event) => (e.preventDefault(), void call())}>
      <label class="inline small"
        ><input
          type="checkbox"
          checked=${raw !== undefined}
          onChange=${(e: Event) => setRaw((e.target as HTMLInputElement).checked ? JSON.stringify(args, null, 2) : undefined)}
        />
        Raw JSON</label
      >
      ${
        raw !== undefined
          ? html`<div class="field">
              <label for="raw-args">Arguments (JSON)</label>
              <textarea
                id="raw-args"
                rows="8"
                onInput=${(e: Event) => setRaw((e.target as HTMLTextAreaElement).value)}
              >
${raw}</textarea>
            </div>`
          : html`<${SchemaForm}
              schema=${tool.inputSchema}
              value=${args}
              idPrefix=${`arg-${tool.name}`}
              onChange=${setArgs}
            />`
      }
      ${
        issues.length
          ? html`<ul class="error" role="alert" aria-label="Invalid arguments">
              ${issues.map((issue) => html`<li>${issue}</li>`)}
            </ul>`
          : ''
      }
      <div class="actions">
        <button type="submit" class="primary" disabled=${running !== undefined}>Call</button>
        ${running ? html`<button type="button" onClick=${props.onCancel}>Cancel</button>` : ''}
        <button
          type="button"
          onClick=${() =>
            void navigator.clipboard?.writeText(command).then(
              () => setCopied(true),
              () => setCopied(false),
            )}
        >
          Copy as toolwire call
        </button>
        ${copied ? html`<span class="hint" role="status">Copied</span>` : ''}
      </div>
      <code class="command" aria-label="toolwire call command">${shown(command)}</code>
    </form>
    ${
      running
        ? html`<div class="running" aria-live="polite">
            ${
              running.progress
                ? html`<label class="progress-label"
                    >${running.progress.message ?? 'Progress'}
                    <progress
                      aria-label="Progress"
                      max=${running.progress.total ?? undefined}
                      value=${running.progress.progress}
                    ></progress>
                    ${running.progress.progress}${running.progress.total !== undefined ? ` / ${running.progress.total}` : ''}</label
                  >`
                : html`<progress aria-label="Progress"></progress>`
            }
            ${running.task ? html`<div class="task" role="status">Task ${str(running.task.taskId)}: ${str(running.task.status)} ${str(running.task.statusMessage)}</div>` : ''}
          </div>`
        : ''
    }
    ${running?.logs.length ? html`<div class="logs" aria-label="Logs">${running.logs.map((log) => html`<div class="log">${JSON.stringify(log)}</div>`)}</div>` : ''}
    <section role="region" aria-label="Result" class="result">
      <h3>Result</h3>
      ${props.outcome ? html`<${ResultView} outcome=${props.outcome} context=${props.context} />` : html`<p class="hint">Not called yet.</p>`}
    </section>
    ${
      props.outcome?.result && hasView(tool)
        ? html`<${AppFrame}
            key=${props.outcome.callId ?? ''}
            tool=${tool.name}
            args=${props.outcome.args ?? {}}
            result=${props.outcome.result}
          />`
        : ''
    }
  </article>`
}

/** What the server's own search found for the words in the box (undefined before any search). */
export interface ServerSearch {
  readonly query: string
  readonly tools?: readonly Tool[]
  readonly error?: string
}

/** How long the box waits after the last key before asking the server (one search per pause, not per key). */
const SEARCH_PAUSE_MS = 250

function ToolButton(props: {
  tool: Tool
  selected: string | undefined
  onSelect: (name: string) => void
}): VNode {
  const { tool } = props
  return html`<li key=${tool.name}>
    <button
      type="button"
      class=${tool.name === props.selected ? 'item selected' : 'item'}
      aria-current=${tool.name === props.selected}
      onClick=${() => props.onSelect(tool.name)}
    >
      <${Name}
        name=${tool.name}
        kind="tool"
      />${str(tool.title) && str(tool.title) !== tool.name ? html`<span class="sub"> — ${shown(str(tool.title))}</span>` : ''}
    </button>
  </li>`
}

/**
 * The listed tools, filtered by the box as one types. When the server offers `search_tools` (tool search: it
 * lists a few tools and finds the rest), the same words are also sent to it after a pause, and what it finds
 * is shown below, selectable and callable like a listed tool.
 */
export function ToolList(props: {
  tools: Tool[]
  selected: string | undefined
  onSelect: (name: string) => void
  /** Present when the server offers `search_tools`: asks it for these words. */
  onServerSearch?: ((query: string) => void) | undefined
  found?: ServerSearch | undefined
}): VNode {
  const [query, setQuery] = useState('')
  const needle = query.toLowerCase()
  const listed = props.tools.filter((tool) =>
    [tool.name, str(tool.title), str(tool.description)].some((text) => text.toLowerCase().includes(needle)),
  )
  const { onServerSearch, found } = props
  useEffect(() => {
    if (!onServerSearch || query.trim() === '') return
    const timer = setTimeout(() => onServerSearch(query.trim()), SEARCH_PAUSE_MS)
    return () => clearTimeout(timer)
  }, [query, onServerSearch])
  const current = onServerSearch && query.trim() !== '' && found?.query === query.trim() ? found : undefined
  return html`<nav class="list" aria-label="Tools">
    <label class="search"
      >${onServerSearch ? 'Search tools (the server’s search_tools too)' : 'Search tools'}
      <input
        type="search"
        value=${query}
        onInput=${(e: Event) => setQuery((e.target as HTMLInputElement).value)}
    /></label>
    <ul>
      ${listed.map((tool) => html`<${ToolButton} key=${tool.name} tool=${tool} selected=${props.selected} onSelect=${props.onSelect} />`)}
    </ul>
    ${listed.length === 0 ? html`<p class="hint">${onServerSearch ? 'No listed tool matches.' : 'No tools.'}</p>` : ''}
    ${
      current
        ? html`<h3 class="found-title">Found by the server’s search_tools</h3>
            ${current.error ? html`<p class="error" role="alert">${current.error}</p>` : ''}
            <ul aria-label="Found by search_tools">
              ${(current.tools ?? []).map((tool) => html`<${ToolButton} key=${tool.name} tool=${tool} selected=${props.selected} onSelect=${props.onSelect} />`)}
            </ul>
            ${current.tools?.length === 0 ? html`<p class="hint">The server found no tools.</p>` : ''}`
        : ''
    }
  </nav>`
}
