/**
 * Where counted instructions go, by function, JIT code included (`npm run bench:instructions -- --profile`).
 * callgrind names code V8 generated at run time by its address alone; node's `--perf-basic-prof` writes a map
 * of that code (`/tmp/perf-<pid>.map`: start, size and name per line, `JS:*name file:line:col` for optimised
 * JavaScript), and the addresses are named from it here. Self instructions only: with V8 inlining, a
 * function's cost shows in whatever it was inlined into.
 */

/** The lines of a perf map as `[start, end, name]`, sorted by start. */
export function parsePerfMap(text) {
  const ranges = []
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.+)$/i.exec(line)
    if (!match) continue
    const start = Number.parseInt(match[1], 16)
    ranges.push([start, start + Number.parseInt(match[2], 16), match[3]])
  }
  return ranges.sort((a, b) => a[0] - b[0])
}

/** The name of the code at `address`, or undefined when no range holds it. */
function nameAt(ranges, address) {
  let low = 0
  let high = ranges.length - 1
  let found = -1
  while (low <= high) {
    const middle = (low + high) >> 1
    if (ranges[middle][0] <= address) {
      found = middle
      low = middle + 1
    } else high = middle - 1
  }
  return found >= 0 && address < ranges[found][1] ? ranges[found][2] : undefined
}

/**
 * Self instructions (the first event column) per function of a callgrind output, a name callgrind gave as an
 * address (`0x…`, perhaps with a recursion suffix `'2`) replaced by the perf map's name for it.
 */
export function selfInstructions(callgrindText, ranges) {
  const names = new Map()
  const self = new Map()
  const pretty = (name) => {
    const match = /^0x([0-9a-f]+)(?:'\d+)?$/i.exec(name)
    return match ? (nameAt(ranges, Number.parseInt(match[1], 16)) ?? name) : name
  }
  // `fn=(12) name` names id 12 (fn= and cfn= share one table); `fn=(12)` uses it again.
  const named = (spec) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(spec)
    if (!match) return pretty(spec)
    if (match[2] !== undefined) names.set(match[1], pretty(match[2]))
    return names.get(match[1]) ?? spec
  }
  let current = ''
  let callCost = false
  for (const line of callgrindText.split('\n')) {
    if (line.startsWith('fn=')) current = named(line.slice(3))
    else if (line.startsWith('cfn=')) named(line.slice(4))
    else if (line.startsWith('calls=')) callCost = true
    else if (/^[+\-*]?\d/.test(line) || line.startsWith('*')) {
      // The line after `calls=` is the call's inclusive cost, not the caller's own.
      if (callCost) callCost = false
      else {
        const cost = Number(line.trim().split(/\s+/)[1] ?? 0)
        self.set(current, (self.get(current) ?? 0) + cost)
      }
    }
  }
  return self
}

/**
 * The functions whose self instructions per unit differ most between two profiles (`toolwire` minus
 * `floor`), largest first: `[name, difference, toolwire, floor]`. Names keep their file but not a chunk's
 * content hash, so two builds compare.
 */
export function profileDifference(toolwire, floor, units, limit = 25) {
  const stable = (profile) => {
    const out = new Map()
    for (const [name, cost] of profile) {
      const key = name.replace(/(chunks\/[\w.-]+?)-[\w-]{8}\.js/, '$1.js')
      out.set(key, (out.get(key) ?? 0) + cost / units)
    }
    return out
  }
  const a = stable(toolwire)
  const b = stable(floor)
  return [...new Set([...a.keys(), ...b.keys()])]
    .map((name) => [name, (a.get(name) ?? 0) - (b.get(name) ?? 0), a.get(name) ?? 0, b.get(name) ?? 0])
    .sort((x, y) => y[1] - x[1])
    .slice(0, limit)
}
