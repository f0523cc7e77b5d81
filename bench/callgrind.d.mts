// Types for bench/callgrind.mjs, so the test (TypeScript) can import its pieces.
export declare const USAGE: string
export declare const ROWS: readonly string[]
export interface InstructionsOptions {
  readonly help: boolean
  readonly quick: boolean
  readonly profile: boolean
  readonly guards: boolean
  readonly calls: number
  readonly warmup: number
  readonly concurrency: number
  readonly streams: number
  readonly changes: number
  readonly only: readonly string[]
  readonly keep: string | true | undefined
  readonly out: string | true
}
export declare function parseArgs(argv: readonly string[]): InstructionsOptions
export declare function totalInstructions(text: string): number
export declare function valgrindVersion(): string | undefined
export declare function callgrindControl(pid: number, ...command: string[]): Promise<void>
export declare const COMPILE_FUNCTION: string
export declare function compileInstructionsIn(annotated: string): number
export declare function compileInstructions(file: string): number
export declare const HASH_SEED_FUNCTION: string
export declare const COLD_PARTS: Readonly<Record<'parse' | 'lazyCompile' | 'regExpCompile', string>>
export declare function inclusiveIn(annotated: string, name: string): number
export declare function annotateInclusive(file: string): string
export declare const START_NOISE: readonly string[]
export declare function serverEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>>,
): Record<string, string | undefined>
