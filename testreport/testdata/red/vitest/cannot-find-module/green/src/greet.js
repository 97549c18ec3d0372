export function hello(name) {
  return 'hi, ' + name
}
