/** The demo's one skill (the Skills extension): how to use the demo's notebook, served as skill://notebook-workflow. */
import { defineSkill } from '../index.js'

export const notebookSkill = defineSkill({
  skillMd: `---
name: notebook-workflow
description: Keep and summarize notes with the demo's notebook tools
---

# Notebook workflow

1. Call \`add_note\`; the user fills in the title and body in a form.
2. Read \`notes://all\` to see every note.
3. Use the \`summarize_notes\` prompt (optionally with a tag) for a summary.
4. To clean up, call \`delete_notes\`; the user confirms first.

See references/TAGS.md for tagging conventions.
`,
  files: {
    'references/TAGS.md': 'Tag notes with one lowercase word: work, home, idea.\n',
  },
})
