// `npm run conformance -- acs URL [--key-id ID --key-env VAR]`: runs the ACS v0.1
// conformance cases against any Guardian's HTTP endpoint and prints a table of what passed.
// Exit 0 when nothing failed (skips do not fail), 1 otherwise.

import { CASES, type CaseContext } from './acs-cases.js'

/** Runs every case against `url`; returns the printed table and whether all passed. */
export async function runConformance(
  url: string,
  key: CaseContext['key'],
): Promise<{ table: string; failed: number }> {
  const post = async (body: unknown) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    })
    const text = await response.text()
    return text.length > 0 ? JSON.parse(text) : undefined
  }
  const rows = ['| section | check | result |', '|---|---|---|']
  let failed = 0
  for (const c of CASES) {
    let result: string
    try {
      const outcome = await c.run({ post, key })
      result =
        outcome === 'skip'
          ? 'skip (needs --key-env)'
          : typeof outcome === 'string' && outcome.startsWith('skip')
            ? outcome
            : 'pass'
    } catch (error) {
      failed++
      result = `FAIL: ${(error as Error).message.replaceAll('|', '/').slice(0, 160)}`
    }
    rows.push(`| ${c.section} | ${c.title} | ${result} |`)
  }
  rows.push('', `${CASES.length - failed} of ${CASES.length} checks passed or skipped; ${failed} failed`)
  return { table: `${rows.join('\n')}\n`, failed }
}

const isMain = import.meta.url === `file://${process.argv[1]}`
if (isMain) {
  const [protocol, url, ...rest] = process.argv.slice(2)
  if (protocol !== 'acs' || !url || !/^https?:\/\//.test(url)) {
    process.stderr.write(
      'usage: npm run conformance -- acs http://127.0.0.1:7070/acs [--key-id k1 --key-env ACS_KEY]\n',
    )
    process.exit(1)
  }
  const option = (name: string) => {
    const i = rest.indexOf(name)
    return i >= 0 ? rest[i + 1] : undefined
  }
  const keyEnv = option('--key-env')
  const secret = keyEnv ? process.env[keyEnv] : undefined
  if (keyEnv && !secret) {
    process.stderr.write(`the environment variable ${keyEnv} is not set\n`)
    process.exit(1)
  }
  const key = secret ? { id: option('--key-id') ?? 'k1', material: Buffer.from(secret, 'utf8') } : undefined
  const { table, failed } = await runConformance(url, key)
  process.stdout.write(table)
  process.exit(failed === 0 ? 0 : 1)
}
