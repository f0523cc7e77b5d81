/**
 * ajv and the RE2 pattern engine imported up front, for code that validates untrusted schemas: their
 * patterns must run on RE2, which only the ajv engine applies, so nothing may wait for a lazy load
 * (engines.ts) there, in a browser or in a bundle.
 */
import Ajv2019Module from 'ajv/dist/2019.js'
import Ajv2020Module from 'ajv/dist/2020.js'
import AjvDraft07Module from 'ajv'
import addFormatsModule from 'ajv-formats'
import { RE2JS } from 're2js'
import safeRegex from 'safe-regex2'
import type { AjvModules } from './ajv-engine.js'
import { lazyRegExp } from './engines.js'

lazyRegExp.provide({ RE2JS, safeRegex })

export const AJV_MODULES: AjvModules = {
  Ajv2020: Ajv2020Module.default,
  Ajv2019: Ajv2019Module.default,
  AjvDraft07: AjvDraft07Module.default,
  addFormats: addFormatsModule.default,
}
