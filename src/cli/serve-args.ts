// The command line of `warden serve`: its help text and its flags.

import { parseArgs } from './args.js'

/** What `warden serve --help` prints (and a flag error shows after the cause). */
export const HELP = `usage: warden serve [--port 7070] [--host 127.0.0.1] [--config warden.yaml] [--db URL] [--hooks DIR]

Runs Warden as an AOS Guardian: JSON-RPC 2.0 on POST /aos (every AOS method, batches,
notifications), GET /healthz. Settings come from the config's server: section; flags win.
Without --config, ./warden.yaml is used when it exists. SIGTERM or SIGINT stops it
gracefully: requests in flight finish, background hooks drain, then it exits 0.

options:
  -p, --port N        port to listen on (default 7070; 0 picks a free one)
  -H, --host ADDR     address to listen on (default 127.0.0.1)
  -c, --config FILE   warden.yaml with hooks, guardians, limits and server settings
  --db URL            audit and hook store: postgres://… or a SQLite file (default:
                      WARDEN_DATABASE_URL, the config's db:, else .warden/warden.db)
  --hooks DIR         a folder of Markdown hook files, watched: a changed file is reloaded,
                      a broken one reported and its previous version kept (repeatable);
                      default: ./.harness/hooks when there is one
  --claude-settings F the hooks of a Claude Code settings file (repeatable)
  --profile FILE      the hooks of a loom agent.json profile (repeatable)
  --goclaw FILE       GoClaw hook definitions and tenant budgets (JSON or YAML; repeatable)
  --allowed-host NAME a Host name clients use besides 127.0.0.1, localhost and [::1] (a
                      reverse proxy's name; repeatable; adds to server.allowedHosts)
  --insecure-no-auth  allow a non-loopback --host without server.auth: token (only when
                      something in front of Warden checks callers)
  -h, --help          this text

examples:
  warden serve --config examples/warden.yaml          # then open http://127.0.0.1:7070/
  warden serve --port 0 --hooks ./hooks --db postgres://warden@db/warden
`

/** Parses `warden serve`'s flags; throws naming an unknown or malformed one. */
export function parseServeArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: false,
    options: {
      port: { type: 'string', short: 'p' },
      host: { type: 'string', short: 'H' },
      config: { type: 'string', short: 'c' },
      db: { type: 'string' },
      hooks: { type: 'string', multiple: true },
      'claude-settings': { type: 'string', multiple: true },
      profile: { type: 'string', multiple: true },
      goclaw: { type: 'string', multiple: true },
      'allowed-host': { type: 'string', multiple: true },
      'insecure-no-auth': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}
