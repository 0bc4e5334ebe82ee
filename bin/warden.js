#!/usr/bin/env node
// The `warden` command: runs the compiled CLI from dist/ (built by `npm ci` / `npm run build`).
import { main } from '../dist/cli/index.js'

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error) => {
    process.stderr.write(`warden: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  },
)
