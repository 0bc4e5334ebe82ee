// A command hook (Claude Code contract: the event as JSON on stdin, exit 2 = deny with
// stderr as the reason). Used on a2a.send and a2a.response: no passwords asked for, no
// API keys given out.
let input = ''
for await (const chunk of process.stdin) input += chunk
if (/password/i.test(input)) {
  process.stderr.write('no talk of passwords between agents')
  process.exit(2)
}
if (/sk-live[A-Za-z0-9]{8}/.test(input)) {
  process.stderr.write('an API key in the answer')
  process.exit(2)
}
