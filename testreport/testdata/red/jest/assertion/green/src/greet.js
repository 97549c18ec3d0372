function hello(name) {
  return 'hello, ' + name
}

module.exports = { hello }
