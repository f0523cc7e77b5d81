// Types for bench/jit-profile.mjs, so the test (TypeScript) can check it.
export type PerfRange = [start: number, end: number, name: string]
export declare function parsePerfMap(text: string): PerfRange[]
export declare function selfInstructions(
  callgrindText: string,
  ranges: readonly PerfRange[],
): Map<string, number>
export declare function profileDifference(
  toolwire: ReadonlyMap<string, number>,
  floor: ReadonlyMap<string, number>,
  units: number,
  limit?: number,
): [name: string, difference: number, toolwire: number, floor: number][]
