// `npm run bench`: runs every bench/*.bench.ts (or those named on the command line) and
// prints each one's figures as a table of ratios against its same-run baseline.

import { readdirSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { type Benchmark, printResults } from './lib.js'

const here = fileURLToPath(new URL('.', import.meta.url))
const wanted = process.argv.slice(2)
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort()

let failed = 0
for (const [index, file] of files.entries()) {
  // On a terminal, say which benchmark is running: some take a minute.
  if (process.stderr.isTTY && !process.env.NO_COLOR)
    process.stderr.write(
      `\u001b[2m[${index + 1}/${files.length}] ${file.replace('.bench.ts', '')}…\u001b[22m\n`,
    )
  else if (process.stderr.isTTY)
    process.stderr.write(`[${index + 1}/${files.length}] ${file.replace('.bench.ts', '')}…\n`)
  const module = (await import(pathToFileURL(`${here}${file}`).href)) as { default: Benchmark }
  try {
    const results = await module.default()
    printResults(file.replace('.bench.ts', ''), results)
    failed += results.filter((r) => !r.pass).length
  } catch (error) {
    process.stdout.write(
      `\n### ${file}\n\nfailed to run: ${error instanceof Error ? error.stack : String(error)}\n`,
    )
    failed++
  }
}
process.stdout.write(`\n${failed === 0 ? 'every goal met' : `${failed} goal(s) not met`}\n`)
process.exit(0)
