#!/usr/bin/env node
// The `warden` command: runs the compiled CLI from dist/ (built by `npm ci` / `npm run build`
// in a checkout; shipped built in the package).
const cli = new URL('../dist/cli/index.js', import.meta.url)

import(cli.href)
  .then(({ main }) => main(process.argv.slice(2)))
  .then(
    (code) => {
      process.exitCode = code
    },
    (error) => {
      const notBuilt = error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes(cli.pathname)
      process.stderr.write(
        notBuilt
          ? 'warden: the CLI is not built (dist/ is missing): run "npm run build" in the Warden folder\n'
          : `warden: ${error instanceof Error ? error.message : String(error)}\n`,
      )
      process.exitCode = 1
    },
  )
