// Attacks through `warden mcp` with the secrets, protected-paths and prompt-injection packs:
// a real gateway process, a scripted server made with the official SDK, and the official SDK
// client. A credentials file read as a resource, listed or announced; resources, prompts and
// a server's sampling request carrying a key or an injection to the client; a key in the
// client model's answer going back; an unknown method, notification, content block, role or
// resource contents form. Each went through unchecked before resources, prompts and sampling
// were events and the gateway's tables were closed.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  connectThroughGateway,
  eventually,
  firstText,
  fixture,
  type GatewayClient,
  tempDir,
  writeConfig,
} from '../gateway/helpers.js'

const KEY = 'AKIAZ7QX3V5N2M4K6J2H'
const SERVER = [process.execPath, fixture('features-server.mjs')]

let gateway: GatewayClient
let dir: string
const sampled: CreateMessageRequest['params'][] = []
const updated: string[] = []

beforeAll(async () => {
  dir = tempDir('warden-mcp-features-')
  mkdirSync(join(dir, '.aws'))
  writeFileSync(join(dir, '.aws', 'credentials'), `[default]\naws_access_key_id = ${KEY}\n`)
  writeFileSync(join(dir, 'notes.txt'), 'nothing secret here\n')
  const config = writeConfig('packs: [secrets, protected-paths, prompt-injection]\n')
  gateway = await connectThroughGateway(
    ['--config', config],
    SERVER,
    { FEATURES_DIR: dir },
    { sampling: {} },
    (client) => {
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        sampled.push(request.params)
        return {
          role: 'assistant',
          model: 'test-model',
          content: { type: 'text', text: `Deploy with ${KEY} and you are done.` },
        }
      })
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
        updated.push(notification.params.uri)
      })
    },
  )
}, 60_000)

afterAll(async () => {
  await gateway?.close()
})

describe('warden mcp resources', () => {
  it('refuses to read a credentials file, however its file: URI is spelled', async () => {
    for (const uri of [
      `file://${dir}/.aws/credentials`,
      `file://${dir}/%2Eaws/credentials`,
      `file://localhost${dir}/.aws/credentials`,
    ]) {
      const read = gateway.client.readResource({ uri })
      await expect(read, uri).rejects.toThrow(
        /Denied by Warden: paths detector found .*protected by ~\/\.aws/,
      )
    }
    const notes = await gateway.client.readResource({ uri: `file://${dir}/notes.txt` })
    expect(notes.contents[0]).toMatchObject({ text: 'nothing secret here\n' })
  })

  it('leaves the credentials file out of resources/list', async () => {
    const { resources } = await gateway.client.listResources()
    const uris = resources.map((resource) => resource.uri)
    expect(uris).toContain(`file://${dir}/notes.txt`)
    expect(uris).toContain('memo://key')
    expect(uris.some((uri) => uri.includes('.aws'))).toBe(false)
  })

  it('refuses a tool result or prompt that embeds the credentials file as a resource', async () => {
    const result = await gateway.client.callTool({ name: 'embed', arguments: {} })
    expect(result.isError).toBe(true)
    expect(firstText(result)).toMatch(
      /Denied by Warden: embedded resource file:.*\.aws\/credentials: paths detector/,
    )
    await expect(gateway.client.getPrompt({ name: 'embedded' })).rejects.toThrow(/embedded resource file:/)
  })

  it('redacts a key in resource contents and refuses contents that steer the model', async () => {
    const read = await gateway.client.readResource({ uri: 'memo://key' })
    const text = (read.contents[0] as { text: string }).text
    expect(text).not.toContain(KEY)
    expect(text).toContain('[REDACTED:')
    await expect(gateway.client.readResource({ uri: 'memo://steer' })).rejects.toThrow(
      /Denied by Warden: injection detector/,
    )
  })

  it('refuses resource contents that are neither text nor blob, naming the place', async () => {
    await expect(gateway.client.readResource({ uri: 'memo://odd' })).rejects.toThrow(
      /resource contents in mcp has no readable type/,
    )
  })
})

describe('warden mcp prompts', () => {
  it('redacts a key in prompt messages and refuses a prompt that steers the model', async () => {
    const leaky = await gateway.client.getPrompt({ name: 'leaky' })
    const text = (leaky.messages[0]?.content as { text: string } | undefined)?.text ?? ''
    expect(text).not.toContain(KEY)
    expect(text).toContain('[REDACTED:')
    await expect(gateway.client.getPrompt({ name: 'steer' })).rejects.toThrow(/Denied by Warden: injection/)
  })

  it('refuses prompt arguments that carry a key', async () => {
    const echo = gateway.client.getPrompt({ name: 'echo', arguments: { text: `key ${KEY}` } })
    await expect(echo).rejects.toThrow(/Denied by Warden: secrets detector/)
  })

  it('refuses a prompt message in a role MCP does not define, naming it', async () => {
    await expect(gateway.client.getPrompt({ name: 'system' })).rejects.toThrow(/message role type "system"/)
  })
})

describe('warden mcp sampling', () => {
  it("refuses a server's sampling request that steers the client's model; the model never sees it", async () => {
    const before = sampled.length
    const result = await gateway.client.callTool({ name: 'sample', arguments: { topic: 'steer' } })
    expect(firstText(result)).toMatch(/sampling failed: .*Denied by Warden: injection detector/)
    expect(sampled.length).toBe(before)
  })

  it('redacts a key in the system prompt before the client model, and in its answer going back', async () => {
    const result = await gateway.client.callTool({ name: 'sample', arguments: { topic: 'deploys' } })
    expect(firstText(result)).toBe('sampled')
    const request = sampled.at(-1)
    expect(request?.systemPrompt).toContain('[REDACTED:')
    expect(JSON.stringify(request)).not.toContain(KEY)
    await eventually(() => gateway.stderr().includes('sampling answer:'))
    const answer =
      gateway
        .stderr()
        .split('\n')
        .find((line) => line.startsWith('sampling answer:')) ?? ''
    expect(answer).toContain('[REDACTED:')
    expect(answer).not.toContain(KEY)
  })
})

describe('warden mcp closed world', () => {
  it('refuses a request of a method MCP does not define, naming it and the setting', async () => {
    const call = gateway.client.request({ method: 'debug/dumpEnv', params: {} }, z.object({}).loose())
    await expect(call).rejects.toThrow(
      /unknown mcp client request type "debug\/dumpEnv".*mcp\.allowUnknownTypes/,
    )
  })

  it('refuses a task-augmented call, whose result would come past the checks', async () => {
    const call = gateway.client.request(
      { method: 'tools/call', params: { name: 'sample', arguments: {}, task: { ttl: 1000 } } },
      z.object({}).loose(),
    )
    await expect(call).resolves.toMatchObject({ isError: true })
    await expect(
      gateway.client.request({ method: 'tasks/result', params: { taskId: 't1' } }, z.object({}).loose()),
    ).rejects.toThrow(/tasks\/result" is refused/)
  })

  it('replaces a tool result holding an unknown content block with an error naming it', async () => {
    const result = await gateway.client.callTool({ name: 'widget', arguments: {} })
    expect(result.isError).toBe(true)
    expect(firstText(result)).toMatch(/unknown mcp tool result content block type "widget"/)
  })

  it('drops an unknown notification and an update of a protected file, passing the others', async () => {
    const result = await gateway.client.callTool({ name: 'push', arguments: {} })
    expect(firstText(result)).toBe('pushed')
    await eventually(() => updated.includes('memo://plain'))
    expect(updated.some((uri) => uri.includes('.aws'))).toBe(false)
    expect(gateway.stderr()).toMatch(
      /refused inbound notifications\/custom\/push: unknown mcp server notification/,
    )
  })
})
