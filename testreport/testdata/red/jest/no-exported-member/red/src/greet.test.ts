import { expect, test } from '@jest/globals'
import { greet } from './greet'

test('greet greets politely', () => {
  expect(greet('Ada')).toBe('hello, Ada')
})
