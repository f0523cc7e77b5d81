/**
 * The demo's notebook: tools that ask the user before acting (a form to fill in, a confirmation), the
 * notes as resources (with live updates on listen streams), and a prompt that works on them.
 */
import {
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  jsonSchema,
  type PromptDefinition,
  resourceNotFound,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type Server,
  ToolError,
  type ToolDefinition,
} from '../index.js'

interface Note {
  id: number
  title: string
  body: string
  tags: string[]
}

export interface Notebook {
  tools: ToolDefinition[]
  resources: (ResourceDefinition | ResourceTemplateDefinition)[]
  prompts: PromptDefinition[]
  /** Connects the notebook to its server, so changes reach listen streams. */
  attach(server: Server): void
}

const ALL_URI = 'notes://all'

export function createNotebook(): Notebook {
  const notes = new Map<number, Note>()
  let nextId = 1
  let server: Server | undefined
  const changed = (id?: number): void => {
    server?.resourceUpdated(ALL_URI)
    if (id !== undefined) server?.resourceUpdated(`notes://note/${id}`)
  }

  const addNote = defineTool({
    name: 'add_note',
    title: 'Add a note',
    description:
      'Adds a note to the notebook. Missing fields are asked from the user with a form (when the client supports it).',
    inputSchema: jsonSchema<{ title?: string; body?: string }>({
      type: 'object',
      properties: {
        title: { type: 'string', description: 'Short title' },
        body: { type: 'string', description: 'The note itself' },
      },
      additionalProperties: false,
    }),
    handler: async ({ title, body }, ctx) => {
      let tags: string[] = []
      if (ctx.input.supports('elicitation')) {
        const form = await ctx.input.elicit(
          {
            message: 'Complete the note before it is saved',
            requestedSchema: {
              type: 'object',
              properties: {
                title: { type: 'string', title: 'Title', ...(title !== undefined && { default: title }) },
                body: { type: 'string', title: 'Note', ...(body !== undefined && { default: body }) },
                tags: { type: 'string', title: 'Tags (comma separated)' },
              },
              required: ['title', 'body'],
            },
          },
          'note_form',
        )
        if (form.action !== 'accept') return `Nothing saved: the user chose to ${form.action}.`
        title = String(form.content?.title ?? title)
        body = String(form.content?.body ?? body)
        tags = String(form.content?.tags ?? '')
          .split(',')
          .map((tag) => tag.trim())
          .filter(Boolean)
      }
      if (title === undefined || body === undefined)
        throw new ToolError('Give both title and body: this client cannot show a form to ask for them.')
      const note: Note = { id: nextId++, title, body, tags }
      notes.set(note.id, note)
      changed(note.id)
      return `Saved note ${note.id}: ${note.title}`
    },
  })

  const deleteNotes = defineTool({
    name: 'delete_notes',
    title: 'Delete notes',
    description: 'Deletes every note with the given tag (or all notes) after the user confirms.',
    annotations: { destructiveHint: true },
    inputSchema: jsonSchema<{ tag?: string }>({
      type: 'object',
      properties: { tag: { type: 'string', description: 'Only notes with this tag' } },
      additionalProperties: false,
    }),
    handler: async ({ tag }, ctx) => {
      const doomed = [...notes.values()].filter((note) => tag === undefined || note.tags.includes(tag))
      if (doomed.length === 0) return 'No notes match; nothing to delete.'
      if (!ctx.input.supports('elicitation'))
        throw new ToolError('Deleting needs the user to confirm, and this client cannot ask them.')
      const answer = await ctx.input.elicit(
        {
          message: `Delete ${doomed.length} note(s): ${doomed.map((note) => note.title).join(', ')}?`,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Yes, delete them' } },
            required: ['confirm'],
          },
        },
        'confirm_delete',
      )
      if (answer.action !== 'accept' || answer.content?.confirm !== true) return 'Kept every note.'
      for (const note of doomed) {
        notes.delete(note.id)
        changed(note.id)
      }
      return `Deleted ${doomed.length} note(s).`
    },
  })

  const allNotes = defineResource({
    uri: ALL_URI,
    name: 'all-notes',
    title: 'All notes',
    description: 'Every note in the notebook, as JSON. Subscribe to it on a listen stream to see changes.',
    mimeType: 'application/json',
    cache: { ttlMs: 0 },
    read: () => JSON.stringify([...notes.values()], null, 2),
  })

  const oneNote = defineResourceTemplate({
    uriTemplate: 'notes://note/{id}',
    name: 'note',
    title: 'One note',
    description: 'A single note as Markdown',
    mimeType: 'text/markdown',
    cache: { ttlMs: 0 },
    complete: { id: (value) => [...notes.keys()].map(String).filter((id) => id.startsWith(value)) },
    read: (uri, { id }) => {
      const note = notes.get(Number(id))
      if (!note) throw resourceNotFound(uri)
      return `# ${note.title}\n\n${note.body}\n\nTags: ${note.tags.join(', ') || '(none)'}\n`
    },
  })

  const summarize = definePrompt({
    name: 'summarize_notes',
    title: 'Summarize notes',
    description: 'Asks the model to summarize the notes, optionally only those with one tag.',
    arguments: [
      {
        name: 'tag',
        description: 'Only notes with this tag',
        complete: (value) =>
          [...new Set([...notes.values()].flatMap((note) => note.tags))].filter((tag) =>
            tag.startsWith(value),
          ),
      },
    ],
    handler: ({ tag }) => {
      const chosen = [...notes.values()].filter((note) => tag === undefined || note.tags.includes(tag))
      const text = chosen.map((note) => `- ${note.title}: ${note.body}`).join('\n') || '(no notes yet)'
      return `Summarize these notes${tag ? ` tagged "${tag}"` : ''} in three sentences:\n${text}`
    },
  })

  return {
    tools: [addNote, deleteNotes],
    resources: [allNotes, oneNote],
    prompts: [summarize],
    attach: (s) => void (server = s),
  }
}
