import { expect, test } from 'vitest'
import { hello } from './greet.js'

test('hello greets by name', () => {
  expect(hello('Ada')).toBe('hello, Ada')
})
