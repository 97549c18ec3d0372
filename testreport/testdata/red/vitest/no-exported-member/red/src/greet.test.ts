import { expect, test } from 'vitest'
import { greet } from './greet'

test('greet greets politely', () => {
  expect(greet('Ada')).toBe('hello, Ada')
})
