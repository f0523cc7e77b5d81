/**
 * The document parser, @apidevtools/swagger-parser: an optional peer dependency (it brings ten packages and
 * two YAML parsers, which a server that never reads an OpenAPI document should not install), imported the
 * first time a document is read, and named with the command that installs it when it is missing.
 */
import type SwaggerParser from '@apidevtools/swagger-parser'
import { OpenAPIError } from './errors.js'

let loading: Promise<typeof SwaggerParser> | undefined

export function swaggerParser(): Promise<typeof SwaggerParser> {
  loading ??= import('@apidevtools/swagger-parser').then(
    (module) => module.default,
    (error: unknown) => {
      loading = undefined
      const reason =
        'reading an OpenAPI document needs the optional peer dependency @apidevtools/swagger-parser: npm install @apidevtools/swagger-parser'
      throw new OpenAPIError([{ operation: 'document', reason }], { cause: error })
    },
  )
  return loading
}
