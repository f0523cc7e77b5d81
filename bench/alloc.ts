/**
 * `npm run bench:alloc [-- --calls=N --only=toolwire,raw --sites]`: bytes each benchmark server allocates
 * per HTTP tools/call (see `alloc-measure.ts`). `--sites` adds the largest allocation sites.
 */
import { allocationPerCall } from './alloc-measure.js'
import { SERVERS } from './harness.js'

const argument = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)
const calls = Number(argument('calls') ?? 2_000)
const sites = process.argv.includes('--sites')
const only = argument('only')?.split(',')

for (const server of SERVERS) {
  if (only && !only.includes(server.name.split(' ')[0] as string)) continue
  try {
    const measured = await allocationPerCall(server, { calls, sites })
    console.log(`${server.name.padEnd(9)} ${measured.bytesPerCall.toFixed(0)} B allocated per tools/call`)
    for (const [site, bytes] of measured.sites ?? [])
      console.log(`  ${bytes.toFixed(0).padStart(6)}  ${site}`)
  } catch (error) {
    // A server allocating more than the young generation holds over `calls` calls cannot be counted here.
    console.log(`${server.name.padEnd(9)} not counted: ${(error as Error).message} (try fewer --calls)`)
  }
}
