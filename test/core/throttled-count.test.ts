// Counts released at most once a period per key: the first drop is told at once, the next
// ones are gathered until the period has passed, and keys do not share their periods.

import { expect, it } from 'vitest'
import { ThrottledCount } from '../../src/core/index.js'

it('releases the first count at once, then what gathered once per period, per key', () => {
  const counts = new ThrottledCount(10_000)
  expect(counts.add('a', 2, 0)).toBe(2)
  expect(counts.add('a', 3, 4_000)).toBeUndefined()
  expect(counts.add('b', 1, 5_000)).toBe(1)
  expect(counts.add('a', 4, 9_999)).toBeUndefined()
  expect(counts.add('a', 1, 10_000)).toBe(8)
  expect(counts.add('a', 1, 10_001)).toBeUndefined()
  expect(counts.add('b', 6, 15_000)).toBe(6)
})
