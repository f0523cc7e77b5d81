/** ajv and the RE2 pattern engine, loaded when first needed (lazy-modules.ts explains how). */
import type { AjvModules } from './ajv-engine.js'
import { exportsOf, LazyModules } from '../wire/lazy-modules.js'
import type { RegExpModules } from './regexp.js'

export const lazyAjv = new LazyModules<AjvModules>(
  (require) => ({
    Ajv2020: exportsOf(require('ajv/dist/2020.js')),
    Ajv2019: exportsOf(require('ajv/dist/2019.js')),
    AjvDraft07: exportsOf(require('ajv')),
    addFormats: exportsOf(require('ajv-formats')),
  }),
  async () => {
    const [ajv2020, ajv2019, draft07, formats] = await Promise.all([
      import('ajv/dist/2020.js'),
      import('ajv/dist/2019.js'),
      import('ajv'),
      import('ajv-formats'),
    ])
    return {
      Ajv2020: exportsOf(ajv2020),
      Ajv2019: exportsOf(ajv2019),
      AjvDraft07: exportsOf(draft07),
      addFormats: exportsOf(formats),
    }
  },
)

export const lazyRegExp = new LazyModules<RegExpModules>(
  (require) => ({
    RE2JS: (require('re2js') as { RE2JS: RegExpModules['RE2JS'] }).RE2JS,
    safeRegex: exportsOf(require('safe-regex2')),
  }),
  async () => {
    const [re2, safe] = await Promise.all([import('re2js'), import('safe-regex2')])
    return { RE2JS: re2.RE2JS, safeRegex: exportsOf(safe) }
  },
)
