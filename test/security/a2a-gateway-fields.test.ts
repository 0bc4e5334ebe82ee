// Issue 34 item 10 and the closed world of `warden a2a`, attacked against a real gateway in
// front of the official SDK agent, whose own push sender POSTs task events to the URLs it is
// given: a push-notification URL given as an array (or under a snake_case field name) would
// be turned back into a string by the agent and POSTed to loopback; parts whose text is not a
// string, metadata that is not an object and unknown part kinds would pass unchecked. Each is
// refused naming the field or type; `a2a.allowUnknownTypes` lets a named type through, and
// that is named in the decision's event and logged.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import {
  createTask,
  message,
  rest,
  rpc,
  startTenantGateway,
  type TenantGateway,
} from './a2a-gateway-helper.js'

function errorMessage(body: JsonObject): string {
  const error = body.error as JsonObject | undefined
  return String(error?.message ?? '')
}

describe('warden a2a: checked fields have their type, unknown kinds are refused', () => {
  let setup: TenantGateway
  let lenient: TenantGateway
  let victim: Server
  let victimUrl: string
  let pushes = 0
  let taskOfA: string

  beforeAll(async () => {
    victim = createServer((req, res) => {
      pushes++
      req.resume()
      res.end('ok')
    })
    await new Promise<void>((resolve) => victim.listen(0, '127.0.0.1', resolve))
    victimUrl = `http://127.0.0.1:${(victim.address() as AddressInfo).port}/`
    setup = await startTenantGateway({ pushes: true })
    lenient = await startTenantGateway({ limits: { allowUnknownTypes: ['a2a/part/image'] } })
    taskOfA = await createTask(setup.gateway, 'token-a')
  }, 30_000)

  afterAll(async () => {
    await setup?.close()
    await lenient?.close()
    await new Promise((resolve) => victim?.close(resolve))
  })

  it('refuses a push-notification url given as an array in SendMessage, naming the field', async () => {
    const answer = await rpc(setup.gateway, 'token-a', 'SendMessage', {
      message: message('stream:2:report'),
      configuration: { taskPushNotificationConfig: { url: [victimUrl] } },
    })
    expect(answer.body.result).toBeUndefined()
    expect(errorMessage(answer.body)).toContain(
      'params.configuration.taskPushNotificationConfig.url must be a string (got an array)',
    )
    expect(pushes).toBe(0)
  })

  it('refuses it in CreateTaskPushNotificationConfig and on the REST route', async () => {
    const before = setup.peer.calls()
    const create = await rpc(setup.gateway, 'token-a', 'CreateTaskPushNotificationConfig', {
      taskId: taskOfA,
      url: [victimUrl],
    })
    expect(errorMessage(create.body)).toContain('params.url must be a string (got an array)')
    const route = await rest(setup.gateway, 'token-a', 'POST', `/tasks/${taskOfA}/pushNotificationConfigs`, {
      url: [victimUrl],
    })
    expect(route.status).toBe(400)
    expect(errorMessage(route.body)).toContain('params.url must be a string')
    expect(setup.peer.calls()).toBe(before)
  })

  it('refuses a snake_case spelling the agent reads as the checked field', async () => {
    const answer = await rpc(setup.gateway, 'token-a', 'SendMessage', {
      message: message('stream:2:report'),
      configuration: { task_push_notification_config: { url: victimUrl } },
    })
    expect(answer.body.result).toBeUndefined()
    expect(errorMessage(answer.body)).toContain('task_push_notification_config is not an A2A JSON field name')
    expect(pushes).toBe(0)
  })

  it('refuses text that is not a string, metadata that is not an object, and two contents in a part', async () => {
    const cases: [JsonObject, string][] = [
      [
        { ...message('x'), parts: [{ text: ['my password'] }] },
        'params.message.parts[0].text must be a string',
      ],
      [
        { ...message('x'), parts: [{ text: 7 }] },
        'params.message.parts[0].text must be a string (got a number)',
      ],
      [{ ...message('x'), metadata: 'm' }, 'params.message.metadata must be an object'],
      [{ ...message('x'), parts: [{ text: 'hi', url: victimUrl }] }, 'has several contents (text, url)'],
      [{ ...message('x'), parts: 'hello' }, 'params.message.parts must be a list of parts'],
    ]
    const before = setup.peer.calls()
    for (const [sent, expected] of cases) {
      const answer = await rpc(setup.gateway, 'token-a', 'SendMessage', { message: sent })
      expect(answer.body.result, expected).toBeUndefined()
      expect(errorMessage(answer.body)).toContain(expected)
    }
    expect(setup.peer.calls()).toBe(before)
  })

  it('refuses an unknown part kind naming it and the setting, in both spellings', async () => {
    const v1 = await rpc(setup.gateway, 'token-a', 'SendMessage', {
      message: { ...message('x'), parts: [{ image: 'aGVsbG8=' }] },
    })
    expect(errorMessage(v1.body)).toContain('unknown a2a part type "image"')
    expect(errorMessage(v1.body)).toContain('a2a.allowUnknownTypes: ["a2a/part/image"]')
    const v03 = await rpc(setup.gateway, 'token-a', 'message/send', {
      message: { ...message('x'), parts: [{ kind: 'video', video: 'x' }] },
    })
    expect(errorMessage(v03.body)).toContain('unknown a2a part type "video"')
    const noType = await rpc(setup.gateway, 'token-a', 'SendMessage', {
      message: { ...message('x'), parts: [{ metadata: {} }] },
    })
    expect(errorMessage(noType.body)).toContain('has no readable type')
  })

  it('lets a named unknown type through when the operator lists it, and says so in the audit and log', async () => {
    const answer = await rpc(lenient.gateway, 'token-a', 'SendMessage', {
      message: { ...message('x'), parts: [{ text: 'hello' }, { image: 'aGVsbG8=' }] },
    })
    expect(answer.body.error).toBeUndefined()
    const send = lenient.records.find((r) => r.event.event === 'a2a.send')
    expect((send?.event.payload.a2a as JsonObject | undefined)?.unchecked).toEqual({
      reasonCode: 'unknown-type-let-through',
      keys: ['a2a/part/image'],
    })
    expect(lenient.logs.join('\n')).toContain('security: unknown-type-let-through a2a/part/image')
    const other = await rpc(lenient.gateway, 'token-a', 'SendMessage', {
      message: { ...message('x'), parts: [{ audio: 'x' }] },
    })
    expect(errorMessage(other.body)).toContain('unknown a2a part type "audio"')
  })
})
