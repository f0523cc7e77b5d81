/**
 * A form generated from a JSON Schema (a tool's inputSchema, an elicitation's requestedSchema): strings,
 * numbers, integers, booleans, enums, arrays, nested objects, nullable types, defaults and required fields.
 * Each input is labelled with its property's name (tests and screen readers find it by that name). What the
 * form cannot express (anyOf, $ref …) is edited as JSON. Server text is only ever shown as text.
 */
import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { isObject, type JsonObject } from './api.js'

type Schema = JsonObject

const typesOf = (schema: Schema): string[] =>
  Array.isArray(schema.type)
    ? schema.type.filter((t): t is string => typeof t === 'string')
    : typeof schema.type === 'string'
      ? [schema.type]
      : []

/** The non-null type of a field, and whether null is allowed too. */
function shape(schema: Schema): { type: string | undefined; nullable: boolean } {
  const types = typesOf(schema)
  const nullable = types.includes('null')
  const rest = types.filter((t) => t !== 'null')
  if (rest.length > 1) return { type: undefined, nullable }
  const type =
    rest[0] ?? (Array.isArray(schema.enum) ? 'enum' : isObject(schema.properties) ? 'object' : undefined)
  return { type, nullable }
}

/** Initial value of a schema: its default, else an object of its properties' defaults. */
export function initialValue(schema: unknown): unknown {
  if (!isObject(schema)) return undefined
  if (schema.default !== undefined) return structuredClone(schema.default)
  if (shape(schema).type === 'object' && isObject(schema.properties)) {
    const value: JsonObject = {}
    for (const [name, child] of Object.entries(schema.properties)) {
      const initial = initialValue(child)
      if (initial !== undefined) value[name] = initial
    }
    return value
  }
  return undefined
}

interface FieldProps {
  readonly name: string
  readonly id: string
  readonly schema: Schema
  readonly value: unknown
  readonly required: boolean
  readonly onChange: (value: unknown) => void
}

/** The label is the property's name alone (what tests and screen readers find); the required mark is beside it. */
const label = (props: FieldProps): VNode =>
  html`<div class="label-row">
    <label for=${props.id}>${props.name}</label
    >${props.required ? html`<span aria-hidden="true" class="required">*</span>` : ''}
  </div>`

/** The schema's own title and description, as text under the field. */
const description = (schema: Schema): VNode | string => {
  const text = [schema.title, schema.description].filter((part) => typeof part === 'string').join(' — ')
  return text ? html`<div class="hint">${text}</div>` : ''
}

function JsonField(props: FieldProps): VNode {
  const text = props.value === undefined ? '' : JSON.stringify(props.value, null, 2)
  return html`<div class="field">
    ${label(props)}
    <textarea
      id=${props.id}
      rows="3"
      aria-required=${props.required}
      onChange=${(event: Event) => {
        const raw = (event.target as HTMLTextAreaElement).value
        try {
          props.onChange(raw.trim() === '' ? undefined : (JSON.parse(raw) as unknown))
        } catch {
          props.onChange(raw)
        }
      }}
    >
${text}</textarea>
    ${description(props.schema)}
  </div>`
}

function ScalarField(props: FieldProps & { type: string }): VNode {
  const { schema, value, type, id } = props
  let input: VNode
  if (type === 'boolean') {
    input = html`<input
      id=${id}
      type="checkbox"
      checked=${value === true}
      onChange=${(e: Event) => props.onChange((e.target as HTMLInputElement).checked)}
    />`
  } else if (Array.isArray(schema.enum)) {
    const options = schema.enum
    input = html`<select
      id=${id}
      aria-required=${props.required}
      onChange=${(e: Event) => {
        const index = Number((e.target as HTMLSelectElement).value)
        props.onChange(index < 0 ? undefined : options[index])
      }}
    >
      <option value="-1" selected=${value === undefined}>(none)</option>
      ${options.map((option, index) => html`<option value=${String(index)} selected=${option === value}>${String(option)}</option>`)}
    </select>`
  } else if (type === 'number' || type === 'integer') {
    input = html`<input
      id=${id}
      type="number"
      step=${type === 'integer' ? '1' : 'any'}
      aria-required=${props.required}
      value=${typeof value === 'number' ? String(value) : ''}
      onInput=${(e: Event) => {
        const raw = (e.target as HTMLInputElement).value
        props.onChange(raw === '' ? undefined : Number(raw))
      }}
    />`
  } else {
    input = html`<input
      id=${id}
      type="text"
      aria-required=${props.required}
      value=${typeof value === 'string' ? value : ''}
      onInput=${(e: Event) => props.onChange((e.target as HTMLInputElement).value)}
    />`
  }
  return html`<div class=${type === 'boolean' ? 'field inline' : 'field'}>
    ${label(props)}${input}${description(schema)}
  </div>`
}

function ArrayField(props: FieldProps): VNode {
  const items = Array.isArray(props.value) ? props.value : []
  const itemSchema = isObject(props.schema.items) ? props.schema.items : {}
  const set = (next: unknown[]): void => props.onChange(next)
  return html`<fieldset class="field">
    <legend>
      ${props.name}${props.required ? html`<span aria-hidden="true" class="required"> *</span>` : ''}
    </legend>
    ${description(props.schema)}
    ${items.map(
      (item, index) =>
        html`<div class="array-item">
          <${Field}
            name=${`${props.name}[${index}]`}
            id=${`${props.id}-${index}`}
            schema=${itemSchema}
            value=${item}
            required=${true}
            onChange=${(next: unknown) => set(items.map((old, i) => (i === index ? next : old)))}
          />
          <button type="button" class="small" onClick=${() => set(items.filter((_, i) => i !== index))}>
            Remove ${props.name}[${index}]
          </button>
        </div>`,
    )}
    <button type="button" class="small" onClick=${() => set([...items, initialValue(itemSchema)])}>
      Add to ${props.name}
    </button>
  </fieldset>`
}

function ObjectField(props: FieldProps & { top?: boolean }): VNode {
  const value = isObject(props.value) ? props.value : {}
  const properties = isObject(props.schema.properties) ? props.schema.properties : {}
  const required = new Set(Array.isArray(props.schema.required) ? props.schema.required : [])
  const fields = Object.entries(properties).map(([name, child]) => {
    const childSchema = isObject(child) ? child : {}
    return html`<${Field}
      key=${name}
      name=${name}
      id=${`${props.id}.${name}`}
      schema=${childSchema}
      value=${value[name]}
      required=${required.has(name)}
      onChange=${(next: unknown) => {
        const copy: JsonObject = { ...value }
        if (next === undefined) delete copy[name]
        else copy[name] = next
        props.onChange(copy)
      }}
    />`
  })
  if (props.top)
    return html`<div class="fields">${fields.length ? fields : html`<p class="hint">No arguments.</p>`}</div>`
  return html`<fieldset class="field">
    <legend>${props.name}</legend>
    ${description(props.schema)}${fields}
  </fieldset>`
}

function NullableWrap(props: FieldProps & { inner: VNode }): VNode {
  const isNull = props.value === null
  return html`<div class="nullable">
    ${isNull ? html`<div class="field"><span class="label">${props.name}</span> <code>null</code></div>` : props.inner}
    <label class="inline small"
      ><input
        type="checkbox"
        checked=${isNull}
        onChange=${(e: Event) => props.onChange((e.target as HTMLInputElement).checked ? null : initialValue({ ...props.schema, type: shape(props.schema).type }))}
      />
      ${props.name} is null</label
    >
  </div>`
}

export function Field(props: FieldProps): VNode {
  const { type, nullable } = shape(props.schema)
  let inner: VNode
  if (type === 'object') inner = html`<${ObjectField} ...${props} />`
  else if (type === 'array') inner = html`<${ArrayField} ...${props} />`
  else if (
    type === 'string' ||
    type === 'number' ||
    type === 'integer' ||
    type === 'boolean' ||
    type === 'enum'
  )
    inner = html`<${ScalarField} ...${props} type=${type} />`
  else inner = html`<${JsonField} ...${props} />`
  return nullable ? html`<${NullableWrap} ...${props} inner=${inner} />` : inner
}

/** The form of a whole object schema: one field per property. */
export function SchemaForm(props: {
  schema: unknown
  value: unknown
  idPrefix: string
  onChange: (value: JsonObject) => void
}): VNode {
  const schema = isObject(props.schema) ? props.schema : {}
  return html`<${ObjectField}
    top=${true}
    name=""
    id=${props.idPrefix}
    schema=${schema}
    value=${props.value}
    required=${true}
    onChange=${(value: unknown) => props.onChange(isObject(value) ? value : {})}
  />`
}
