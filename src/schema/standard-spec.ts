/**
 * The Standard Schema interfaces toolwire reads (standardschema.dev: "The interface" and "JSON Schema"),
 * declared here by shape: the spec's own package holds nothing but these types, and a schema library (zod
 * v4, Valibot, ArkType …) carries its own copy, so a schema of any of them fits these shapes without a
 * package of its own in the install.
 */

export interface StandardIssue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}

export type StandardResult<Output> =
  { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> }

/** `types` carries the input and output types for inference only; no library sets it at run time. */
export interface StandardTypedProps<Input, Output> {
  readonly version: 1
  readonly vendor: string
  readonly types?: { readonly input: Input; readonly output: Output } | undefined
}

export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardTypedProps<Input, Output> & {
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>
  }
}

/** What `~standard.jsonSchema` converts to: a JSON Schema of the given dialect. */
export interface StandardJSONSchemaOptions {
  readonly target: 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | ({} & string)
}

export interface StandardJSONSchemaConverter {
  readonly input: (options: StandardJSONSchemaOptions) => Record<string, unknown>
  readonly output: (options: StandardJSONSchemaOptions) => Record<string, unknown>
}

export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardTypedProps<Input, Output> & {
    readonly jsonSchema: StandardJSONSchemaConverter
  }
}
