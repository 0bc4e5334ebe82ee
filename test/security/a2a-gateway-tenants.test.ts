// Issue 34 item 11, attacked against a real `warden a2a` in front of the official SDK agent
// (which has no tenancy of its own) with two tenants pinned by token: the A2A `tenant` field
// and the REST `/{tenant}/` prefix must be the caller's tenant, task ids are bound to the
// tenant that created them (get, cancel, subscribe, continue, push configs), and ListTasks
// answers only the caller's tenant's tasks.

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

describe('warden a2a: the caller tenant governs tasks and the tenant field', () => {
  let setup: TenantGateway
  let taskOfA: string

  beforeAll(async () => {
    setup = await startTenantGateway()
    taskOfA = await createTask(setup.gateway, 'token-a')
  }, 30_000)

  afterAll(async () => {
    await setup?.close()
  })

  it('refuses a tenant field naming another tenant than the token', async () => {
    const asB = await rpc(setup.gateway, 'token-b', 'GetTask', { id: taskOfA, tenant: 'tA' })
    expect(asB.body.result).toBeUndefined()
    expect(errorMessage(asB.body)).toContain('names tenant "tA" but the caller is tenant "tB"')
    const recorded = setup.records.find((r) => r.event.event === 'a2a.get' && r.decision.decision === 'deny')
    expect(recorded?.decision.reasonCode).toEqual(['tenant-refused'])
    expect(recorded?.event.context.tenantId).toBe('tB')
    const list = await rpc(setup.gateway, 'token-b', 'ListTasks', { tenant: 'tA' })
    expect(list.body.result).toBeUndefined()
    expect(errorMessage(list.body)).toContain('names tenant "tA"')
  })

  it("refuses another tenant's task id on every method that names one", async () => {
    const calls: [string, JsonObject][] = [
      ['GetTask', { id: taskOfA }],
      ['CancelTask', { id: taskOfA }],
      ['ListTaskPushNotificationConfigs', { taskId: taskOfA }],
      ['GetTaskPushNotificationConfig', { taskId: taskOfA, id: 'cfg' }],
      ['SendMessage', { message: message('more', { taskId: taskOfA }) }],
      ['SendMessage', { message: message('see', { referenceTaskIds: [taskOfA] }) }],
    ]
    const before = setup.peer.calls()
    for (const [method, params] of calls) {
      const answer = await rpc(setup.gateway, 'token-b', method, params)
      expect(answer.body.result, method).toBeUndefined()
      expect(errorMessage(answer.body), method).toContain(`task "${taskOfA}" belongs to another tenant`)
    }
    expect(setup.peer.calls()).toBe(before)
    const own = await rpc(setup.gateway, 'token-a', 'GetTask', { id: taskOfA })
    expect((own.body.result as JsonObject).id).toBe(taskOfA)
  })

  it('refuses a task id the gateway never saw created', async () => {
    const answer = await rpc(setup.gateway, 'token-a', 'GetTask', { id: 'guessed-task-id' })
    expect(errorMessage(answer.body)).toContain('was not created through this gateway')
  })

  it("answers ListTasks with the caller's tenant's tasks only", async () => {
    const taskOfB = await createTask(setup.gateway, 'token-b')
    const asB = await rpc(setup.gateway, 'token-b', 'ListTasks', {})
    const idsOfB = ((asB.body.result as JsonObject).tasks as JsonObject[]).map((t) => t.id)
    expect(idsOfB).toEqual([taskOfB])
    const asA = await rpc(setup.gateway, 'token-a', 'ListTasks', {})
    const idsOfA = ((asA.body.result as JsonObject).tasks as JsonObject[]).map((t) => t.id)
    expect(idsOfA).toContain(taskOfA)
    expect(idsOfA).not.toContain(taskOfB)
  })

  it('routes REST paths under a /{tenant}/ prefix, for the caller tenant only', async () => {
    const sent = await rest(setup.gateway, 'token-a', 'POST', '/tA/message:send', {
      message: message('stream:1:work'),
    })
    expect(sent.status).toBe(200)
    const taskInA = String((sent.body.task as JsonObject).id)
    const own = await rest(setup.gateway, 'token-a', 'GET', `/tA/tasks/${taskInA}`)
    expect(own.status).toBe(200)
    expect(own.body.id).toBe(taskInA)
    const other = await rest(setup.gateway, 'token-b', 'GET', `/tA/tasks/${taskInA}`)
    expect(other.status).toBe(403)
    expect(errorMessage(other.body)).toContain('names tenant "tA" but the caller is tenant "tB"')
    const query = await rest(setup.gateway, 'token-b', 'GET', `/tasks?tenant=tA`)
    expect(query.status).toBe(403)
    const plain = await rest(setup.gateway, 'token-b', 'GET', `/tasks/${taskOfA}`)
    expect(plain.status).toBe(403)
    expect(errorMessage(plain.body)).toContain('belongs to another tenant')
  })
})
