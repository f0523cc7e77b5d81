/**
 * The tools/call `arguments` the input guard walked and found free of non-finite numbers, handed to the
 * tool's validator so the value is not walked a second time for the same answer (schema/finite.ts). One slot,
 * not a field per request: the guard sets it and the call takes it in the same synchronous run on the usual
 * path; on any other (a shared rate-limit store answering later, another request in between) the object
 * differs, the slot reads as empty and the validator makes its own check, so the verdict never depends on it.
 */
let vouched: object | undefined

/** The guard's word on a request's `arguments` (undefined: no word); replaces any earlier one. */
export function vouchFinite(args: object | undefined): void {
  vouched = args
}

/**
 * Whether `args` is the object the guard vouched for; empties the slot. At most one request's arguments are
 * held here, until its call or the next request's guard.
 */
export function takeFiniteVouch(args: unknown): boolean {
  const known = args !== undefined && args === vouched
  vouched = undefined
  return known
}
