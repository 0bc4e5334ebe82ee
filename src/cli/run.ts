// Process entry for the CLI when run from source (tests, `tsx src/cli/run.ts`); the
// installed `warden` bin does the same from dist/.

import { main } from './index.js'

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`warden: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  },
)
