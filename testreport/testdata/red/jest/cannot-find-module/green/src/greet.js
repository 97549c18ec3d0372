function hello(name) {
  return 'hi, ' + name
}

module.exports = { hello }
