// Work after the answer: items of one turn are handed on together once the turn is over,
// never beyond the bound, and a flush hands on at once what waits.

import { expect, it } from 'vitest'
import { AfterTurnQueue } from '../../src/core/index.js'

it('hands on the items of a turn together after it, keeps at most max, and flushes at once', async () => {
  const handed: number[][] = []
  const queue = new AfterTurnQueue<number>(2, (items) => handed.push(items))
  expect(queue.push(1)).toBe(true)
  expect(queue.push(2)).toBe(true)
  expect(queue.push(3)).toBe(false)
  expect(handed).toEqual([])
  await new Promise((resolve) => setImmediate(resolve))
  expect(handed).toEqual([[1, 2]])
  expect(queue.push(4)).toBe(true)
  queue.flush()
  expect(handed).toEqual([[1, 2], [4]])
  await new Promise((resolve) => setImmediate(resolve))
  expect(handed).toEqual([[1, 2], [4]])
})
