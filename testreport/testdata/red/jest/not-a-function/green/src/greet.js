function hello(name) {
  return 'hi, ' + name
}

function shout(name) {
  return hello(name).toUpperCase()
}

module.exports = { hello, shout }
