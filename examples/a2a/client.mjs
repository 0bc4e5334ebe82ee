// The calling agent, also the official SDK: finds the agent through the URL it is given
// (the gateway's), asks three questions and streams the answers.
//   node examples/a2a/client.mjs http://127.0.0.1:4100/

import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'

const url = process.argv[2] ?? 'http://127.0.0.1:4100/'
const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(url)
const message = (value) => ({
  message: {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: 1,
    parts: [
      { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
})

for (const question of [
  'what is the capital of France?',
  'which key does staging use?',
  'what is my password?',
]) {
  let answer = ''
  try {
    for await (const event of client.sendMessageStream(message(question))) {
      if (event.payload?.$case === 'artifactUpdate')
        answer += event.payload.value.artifact.parts.map((p) => p.content?.value ?? '').join('')
    }
    console.log(`${question} -> ${answer}`)
  } catch (error) {
    console.log(`${question} -> refused: ${error.message}`)
  }
}
