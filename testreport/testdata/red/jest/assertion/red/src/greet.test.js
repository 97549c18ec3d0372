const { hello } = require('./greet')

test('hello greets by name', () => {
  expect(hello('Ada')).toBe('hello, Ada')
})
