/**
 * TypeDoc plugin: names each entry point's module by its import path (`toolwire/node`), not by its source
 * path (`transports/http/node`), so the API reference reads as the package is used. The map is taken from
 * package.json's `exports`, so a new entry point is named without touching this file.
 */
import { readFileSync } from 'node:fs'
import { Converter, ReflectionKind } from 'typedoc'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

/** src path without extension (`transports/http/node`) → import path (`toolwire/node`). */
const names = new Map(
  Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && typeof target.default === 'string')
    .map(([subpath, target]) => [
      target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, ''),
      `${pkg.name}${subpath === '.' ? '' : subpath.slice(1)}`,
    ]),
)

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const source = module.sources?.[0]?.fileName.replace(/^src\//, '').replace(/\.ts$/, '')
      const name = (source && names.get(source)) ?? names.get(module.name)
      if (name) module.name = name
    }
  })
}
