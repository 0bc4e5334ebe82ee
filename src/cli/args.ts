// Command-line options for every subcommand: node's parseArgs, strict, with errors people
// can act on. An unknown option names the closest known one ("--confg": did you mean
// "--config"?), and an option missing its value says which value it wants.

import { parseArgs as parseNodeArgs } from 'node:util'
import { editDistance } from '../core/index.js'

type ParseConfig = Parameters<typeof parseNodeArgs>[0] & {}
type OptionSpec = NonNullable<ParseConfig['options']>

/** The known spellings of a command's options: `--name` and `-n` forms. */
function spellings(options: OptionSpec): string[] {
  const names: string[] = []
  for (const [name, spec] of Object.entries(options)) {
    names.push(`--${name}`)
    if (spec.short) names.push(`-${spec.short}`)
  }
  return names
}

/** The known option closest to `given`, when one is close enough to be a typo. */
export function closestOption(given: string, known: readonly string[]): string | undefined {
  const bare = given.replace(/=.*$/, '')
  let best: { name: string; distance: number } | undefined
  for (const name of known) {
    if (!name.startsWith('--')) continue
    const distance = editDistance(bare.toLowerCase(), name)
    if (!best || distance < best.distance) best = { name, distance }
  }
  if (!best) return undefined
  const prefix = known.find((name) => name.startsWith('--') && name.startsWith(bare) && bare.length > 3)
  if (prefix) return prefix
  return best.distance <= Math.max(2, Math.floor(best.name.length / 3)) ? best.name : undefined
}

/**
 * Parses a subcommand's arguments strictly (as `node:util` parseArgs does) and turns its
 * errors into sentences: an unknown option suggests the closest known one.
 * @throws Error with a message fit to print after "warden <command>: ".
 */
export function parseArgs<T extends ParseConfig>(config: T): ReturnType<typeof parseNodeArgs<T>> {
  try {
    return parseNodeArgs(config)
  } catch (error) {
    const code = (error as { code?: string }).code
    const message = (error as Error).message
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const given = /'([^']+)'/.exec(message)?.[1] ?? ''
      const closest = closestOption(given, spellings(config.options ?? {}))
      const hint = closest ? `; did you mean ${closest}?` : '; see --help for the options'
      throw new Error(`unknown option ${given}${hint}`)
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const option = /Option '([^']+)'/.exec(message)?.[1]
      throw new Error(
        option ? `${option.replace(/^-\w, /, '').replace(/ <value>$/, '')} needs a value` : message,
      )
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      const given = /'([^']+)'/.exec(message)?.[1]
      throw new Error(given ? `unexpected argument "${given}"` : message)
    }
    throw error
  }
}
