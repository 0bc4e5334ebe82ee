// src/core must stay pure: no Node built-ins, no imports from other folders, so it runs
// in any JavaScript runtime.

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'

describe('src/core', () => {
  it('imports nothing Node-only and nothing from other Warden folders', () => {
    const dir = join(ROOT, 'src/core')
    const offenders: string[] = []
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8')
      for (const match of text.matchAll(/from '([^']+)'/g)) {
        const spec = match[1] as string
        if (
          spec.startsWith('node:') ||
          spec.startsWith('../') ||
          ['fs', 'path', 'child_process', 'os', 'net', 'http'].includes(spec)
        ) {
          offenders.push(`${file}: ${spec}`)
        }
      }
      if (/\bprocess\.|\bBuffer\b|\brequire\(/.test(text)) offenders.push(`${file}: uses a Node global`)
    }
    expect(offenders).toEqual([])
  })
})
