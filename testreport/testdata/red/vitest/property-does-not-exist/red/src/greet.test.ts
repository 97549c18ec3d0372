import { expect, test } from 'vitest'
import { Greeter } from './greet'

test('a greeter has punctuation', () => {
  const g = new Greeter('hello')
  g.punct = '!'
  expect(g.say('Ada')).toBe('hello, Ada!')
})
