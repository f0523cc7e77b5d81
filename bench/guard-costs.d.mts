// Types for bench/guard-costs.mjs, so the test (TypeScript) can import it.
export interface GuardCounts {
  readonly http: {
    readonly floor: number
    readonly defaults: number
    readonly off: number
    readonly timeoutOff: number
    readonly outputOff: number
    readonly depthOff: number
    readonly schemasOff: number
    readonly bare: number
  }
  readonly stdio: { readonly floor: number; readonly off: number; readonly bare: number }
}
export declare const STEPS: readonly (readonly [key: string, label: string, kind: 'guard' | 'check'])[]
export interface GuardCostResult {
  readonly margin: number
  readonly rateLimits: number
  readonly steps: readonly {
    readonly label: string
    readonly kind: 'guard' | 'check'
    readonly cost: number
  }[]
  readonly together: number
  readonly rest: number
  readonly left: number
  readonly stdio: {
    readonly margin: number
    readonly together: number
    readonly rest: number
    readonly left: number
  }
}
export declare function guardCosts(counts: GuardCounts, target: number): GuardCostResult
export declare function guardCostLines(counts: GuardCounts, target: number): string[]
