/** Resources (list, read, templates with completion) and prompts (arguments with completion, get). */
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import type { VNode } from 'preact'
import { api, errorOf, isObject, type JsonObject } from './api.js'
import { ContentBlocks, ResourceContents, type ResultContext } from './result-view.js'
import { Name, shown, shownLines } from './names.js'

const str = (value: unknown): string => (typeof value === 'string' ? value : '')

/** An input whose suggestions come from the server's completion/complete. */
function CompletingInput(props: {
  id: string
  name: string
  refer: JsonObject
  values: Record<string, string>
  onChange: (value: string) => void
}): VNode {
  const [options, setOptions] = useState<string[]>([])
  const complete = async (value: string): Promise<void> => {
    const answer = await api('complete', {
      ref: props.refer,
      argument: { name: props.name, value },
      context: { arguments: props.values },
    })
    const completion = isObject(answer.completion) ? answer.completion : {}
    setOptions(Array.isArray(completion.values) ? completion.values.map(String).slice(0, 100) : [])
  }
  return html`<div class="field">
    <label for=${props.id}>${shown(props.name)}</label>
    <input
      id=${props.id}
      list=${`${props.id}-options`}
      value=${props.values[props.name] ?? ''}
      onFocus=${(e: Event) => void complete((e.target as HTMLInputElement).value)}
      onInput=${(e: Event) => {
        const value = (e.target as HTMLInputElement).value
        props.onChange(value)
        void complete(value)
      }}
    />
    <datalist id=${`${props.id}-options`}>
      ${options.map((option) => html`<option value=${option}></option>`)}
    </datalist>
  </div>`
}

const variablesOf = (template: string): string[] =>
  [...template.matchAll(/\{[+#./;?&]?([^}]+)\}/g)]
    .flatMap((match) => (match[1] ?? '').split(','))
    .map((name) => name.replace(/\*$|:\d+$/, ''))

/** Level-1 expansion (RFC 6570 simple strings), enough to read most templates. */
const expand = (template: string, values: Record<string, string>): string =>
  template.replace(/\{([^}]+)\}/g, (_, names: string) =>
    names
      .split(',')
      .map((name) => encodeURIComponent(values[name] ?? ''))
      .join(','),
  )

export function Resources(props: {
  resources: unknown
  templates: unknown
  context: ResultContext
  read: (uri: string) => void
  contents: unknown
}): VNode {
  const [values, setValues] = useState<Record<string, Record<string, string>>>({})
  const resources = Array.isArray(props.resources) ? props.resources.filter(isObject) : []
  const templates = Array.isArray(props.templates) ? props.templates.filter(isObject) : []
  const contents =
    isObject(props.contents) && Array.isArray(props.contents.contents)
      ? props.contents.contents.filter(isObject)
      : []
  return html`<div class="catalog">
    <section aria-label="Resources">
      <h2>Resources</h2>
      ${errorOf(props.resources) ? html`<p class="hint">${errorOf(props.resources)}</p>` : ''}
      <ul>
        ${resources.map(
          (r) =>
            html`<li>
              <button type="button" class="item" onClick=${() => props.read(str(r.uri))}>
                ${shown(str(r.uri))}<span class="sub">
                  —
                  ${str(r.title) ? shown(str(r.title)) : html`<${Name} name=${str(r.name)} kind="resource" />`}</span
                >
              </button>
            </li>`,
        )}
      </ul>
    </section>
    <section aria-label="Resource templates">
      <h2>Templates</h2>
      ${templates.map((t) => {
        const template = str(t.uriTemplate)
        const mine = values[template] ?? {}
        return html`<form
          class="template"
          onSubmit=${(e: Event) => (e.preventDefault(), props.read(expand(template, mine)))}
        >
          <code>${shown(template)}</code>
          <span class="sub"
            >${str(t.title) ? shown(str(t.title)) : html`<${Name} name=${str(t.name)} kind="resource" />`}</span
          >
          ${variablesOf(template).map(
            (name) =>
              html`<${CompletingInput}
                id=${`tpl-${template}-${name}`}
                name=${name}
                refer=${{ type: 'ref/resource', uri: template }}
                values=${mine}
                onChange=${(value: string) => setValues({ ...values, [template]: { ...mine, [name]: value } })}
              />`,
          )}
          <button type="submit">Read ${shown(template)}</button>
        </form>`
      })}
    </section>
    <section role="region" aria-label="Resource contents" class="result">
      <h2>Contents</h2>
      ${errorOf(props.contents) ? html`<div class="error" role="alert">${errorOf(props.contents)}</div>` : ''}
      ${contents.map((c) => html`<${ResourceContents} contents=${c} />`)}
    </section>
  </div>`
}

export function Prompts(props: { prompts: unknown; context: ResultContext }): VNode {
  const prompts = Array.isArray(props.prompts) ? props.prompts.filter(isObject) : []
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const [values, setValues] = useState<Record<string, string>>({})
  const [result, setResult] = useState<JsonObject | undefined>(undefined)
  const prompt = prompts.find((p) => p.name === selected)
  const args = prompt && Array.isArray(prompt.arguments) ? prompt.arguments.filter(isObject) : []
  const messages = result && Array.isArray(result.messages) ? result.messages.filter(isObject) : []
  return html`<div class="catalog">
    <nav aria-label="Prompts" class="list">
      <ul>
        ${prompts.map(
          (p) =>
            html`<li>
              <button
                type="button"
                class="item"
                onClick=${() => (setSelected(str(p.name)), setValues({}), setResult(undefined))}
              >
                <${Name} name=${str(p.name)} kind="prompt" /><span class="sub">
                  — ${shown(str(p.title) || str(p.description))}</span
                >
              </button>
            </li>`,
        )}
      </ul>
      ${errorOf(props.prompts) ? html`<p class="hint">${errorOf(props.prompts)}</p>` : ''}
    </nav>
    ${
      prompt
        ? html`<form
            class="detail"
            onSubmit=${(e: Event) => {
              e.preventDefault()
              void api('prompt', { name: str(prompt.name), args: values }).then(setResult)
            }}
          >
            <h2><${Name} name=${str(prompt.name)} kind="prompt" /></h2>
            <p>${shownLines(str(prompt.description))}</p>
            ${args.map(
              (a) =>
                html`<${CompletingInput}
                  id=${`prompt-${str(a.name)}`}
                  name=${str(a.name)}
                  refer=${{ type: 'ref/prompt', name: str(prompt.name) }}
                  values=${values}
                  onChange=${(value: string) => setValues({ ...values, [str(a.name)]: value })}
                />`,
            )}
            <button type="submit" class="primary">Get prompt</button>
            <section role="region" aria-label="Prompt messages" class="result">
              ${result && errorOf(result) ? html`<div class="error" role="alert">${errorOf(result)}</div>` : ''}
              ${messages.map(
                (m) =>
                  html`<div class="prompt-message">
                    <strong>${str(m.role)}</strong>
                    <${ContentBlocks} blocks=${[m.content]} context=${props.context} />
                  </div>`,
              )}
            </section>
          </form>`
        : ''
    }
  </div>`
}
