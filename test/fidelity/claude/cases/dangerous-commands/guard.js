// Corpus hook written for Warden's fidelity tests, in the pattern of the MIT-licensed
// block-dangerous-commands plugin (see ../../SOURCES.md): a table of patterns, a JSON
// permissionDecision of deny or ask, `{}` for everything else.
const RULES = [
  {
    id: 'rm-home',
    pattern: /\brm\s+(-\S+\s+)*~\/?(\s|$)/,
    decision: 'deny',
    reason: 'rm targeting home directory',
  },
  {
    id: 'curl-sh',
    pattern: /\b(curl|wget)\b.+\|\s*(ba)?sh\b/,
    decision: 'deny',
    reason: 'piping a URL to a shell',
  },
  {
    id: 'reset-hard',
    pattern: /\bgit\s+reset\s+--hard/,
    decision: 'ask',
    reason: 'git reset --hard loses work',
  },
]
let input = ''
process.stdin.on('data', (chunk) => {
  input += chunk
})
process.stdin.on('end', () => {
  const data = JSON.parse(input)
  if (data.tool_name !== 'Bash') return console.log('{}')
  const command = data.tool_input?.command ?? ''
  const rule = RULES.find((r) => r.pattern.test(command))
  if (!rule) return console.log('{}')
  console.log(
    JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: rule.decision,
        permissionDecisionReason: `[${rule.id}] ${rule.reason}`,
      },
    }),
  )
})
