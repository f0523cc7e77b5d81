/**
 * JSON with comments, as VS Code reads its settings and `.vscode/mcp.json`: `//` and `/* … *\/` comments and
 * a trailing comma before `}` or `]`, nothing else beyond JSON. Comments and trailing commas are replaced by
 * spaces (line breaks kept), so the text keeps its length and `JSON.parse`, which does the rest, reports an
 * error at the position it has in the file.
 */
export function parseJsonc(text: string): unknown {
  const chars = [...withoutComments(text.replace(/^\uFEFF/, ''))]
  let inString = false
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]
    if (inString) {
      if (char === '\\') i++
      else if (char === '"') inString = false
    } else if (char === '"') {
      inString = true
    } else if (char === ',') {
      let next = i + 1
      while (next < chars.length && /\s/.test(chars[next] ?? '')) next++
      if (chars[next] === '}' || chars[next] === ']') chars[i] = ' '
    }
  }
  return JSON.parse(chars.join(''))
}

/** The text with each comment's characters replaced by spaces, its line breaks kept. */
function withoutComments(text: string): string {
  let out = ''
  let i = 0
  while (i < text.length) {
    const char = text[i] ?? ''
    if (char === '"') {
      let end = i + 1
      while (end < text.length && text[end] !== '"' && text[end] !== '\n') end += text[end] === '\\' ? 2 : 1
      out += text.slice(i, end + 1)
      i = end + 1
    } else if (char === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      const block = text[i + 1] === '*'
      const close = block ? text.indexOf('*/', i + 2) : text.indexOf('\n', i)
      if (block && close === -1) throw new SyntaxError(`Unterminated comment at position ${i}`)
      const end = close === -1 ? text.length : block ? close + 2 : close
      out += text.slice(i, end).replace(/[^\r\n]/g, ' ')
      i = end
    } else {
      out += char
      i++
    }
  }
  return out
}
