import { expect, test } from 'vitest'
import * as greet from './greet.js'

test('shout greets loudly', () => {
  expect(greet.shout('Ada')).toBe('HI, ADA')
})
