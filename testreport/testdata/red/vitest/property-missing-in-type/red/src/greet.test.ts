import { expect, test } from 'vitest'
import { Greeter, type Shouter } from './greet'

test('a greeter shouts', () => {
  const s: Shouter = new Greeter('hello')
  expect(s.shout('Ada')).toBe('HELLO, ADA')
})
