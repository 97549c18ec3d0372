export function hello(name) {
  return 'hello, ' + name
}
