// The ACS folder's layout: core protocol, profiles, agent side and Guardian side apart, each
// with an index.ts; core imports none of the others, folders meet only through index.ts, and
// no file imports itself back through a circle.

import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../../src/protocols/acs')
const FOLDERS = ['core', 'profiles', 'agent', 'guardian'] as const

function filesOf(folder: string): string[] {
  return readdirSync(join(ROOT, folder))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => normalize(join(folder, name)))
}

/** Relative imports of one file, as paths relative to the acs folder (`..` when outside). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const found: string[] = []
  for (const match of text.matchAll(/from '(\.[^']+)\.js'/g)) {
    const target = relative(ROOT, join(ROOT, dirname(file), `${match[1]}.ts`))
    found.push(target)
  }
  return found
}

const files = ['index.ts', ...FOLDERS.flatMap(filesOf)]
const graph = new Map(
  files.map((file) => [file, importsOf(file).filter((target) => !target.startsWith('..'))]),
)

describe('src/protocols/acs layout', () => {
  it('has an index.ts in each subfolder and no loose files beside the folder index', () => {
    for (const folder of FOLDERS) expect(readdirSync(join(ROOT, folder))).toContain('index.ts')
    const loose = readdirSync(ROOT).filter((name) => name.endsWith('.ts'))
    expect(loose).toEqual(['index.ts'])
  })

  it('keeps the core protocol free of profiles, agent and Guardian imports', () => {
    for (const file of filesOf('core')) {
      for (const target of graph.get(file) ?? [])
        expect(target.startsWith('core/'), `${file} -> ${target}`).toBe(true)
    }
  })

  it('crosses subfolders only through their index.ts', () => {
    for (const [file, targets] of graph) {
      if (file === 'index.ts') continue
      const own = file.split('/')[0]
      for (const target of targets) {
        if (target.split('/')[0] === own) continue
        expect(target.endsWith('/index.ts'), `${file} -> ${target}`).toBe(true)
      }
    }
  })

  it('has no import circle between files (once index.ts files are seen through)', () => {
    // An index.ts only re-exports, so an edge to it is an edge to the file that defines the name;
    // following every re-export is the conservative reading.
    const through = (target: string): string[] =>
      target.endsWith('/index.ts') && target !== 'index.ts' ? (graph.get(target) ?? []) : [target]
    const edges = new Map([...graph].map(([file, targets]) => [file, targets.flatMap(through)]))
    const state = new Map<string, 'open' | 'done'>()
    const circles: string[] = []
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' -> '))
        return
      }
      state.set(file, 'open')
      for (const next of edges.get(file) ?? []) visit(next, [...path, file])
      state.set(file, 'done')
    }
    for (const file of files) if (!file.endsWith('index.ts')) visit(file, [])
    expect(circles).toEqual([])
  })
})
