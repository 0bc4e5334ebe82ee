// A command hook (Claude Code contract: the event as JSON on stdin, exit 2 = deny with
// stderr as the reason). Used on a2a.send, a2a.stream and a2a.response: no passwords asked
// for, no API keys given out. It reads the A2A JSON-RPC message at `a2a.payload`: the
// request's `params.message.parts`, or every part under an answer's `result`. The shape is
// the same on `/aos` (`warden serve`) and `warden a2a`, so this hook serves both.
let input = ''
for await (const chunk of process.stdin) input += chunk
const a2a = JSON.parse(input).warden?.payload?.a2a ?? {}
const message = a2a.payload ?? {}

/** The text of every part under a value: a message, a task, an artifact or an update. */
function texts(value) {
  if (Array.isArray(value)) return value.flatMap(texts)
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'parts' && Array.isArray(inner)
      ? inner.map((part) => (typeof part?.text === 'string' ? part.text : ''))
      : texts(inner),
  )
}

const text = ('result' in message ? texts(message.result) : texts(message.params?.message)).join('')
if (/password/i.test(text)) {
  process.stderr.write('no talk of passwords between agents')
  process.exit(2)
}
if (/sk-live[A-Za-z0-9]{8}/.test(text)) {
  process.stderr.write('an API key in the answer')
  process.exit(2)
}
