const { shout } = require('./greet')

test('shout greets loudly', () => {
  expect(shout('Ada')).toBe('HI, ADA')
})
