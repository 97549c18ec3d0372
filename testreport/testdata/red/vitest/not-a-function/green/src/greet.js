export function hello(name) {
  return 'hi, ' + name
}

export function shout(name) {
  return hello(name).toUpperCase()
}
