def hello(name):
    return "hi, " + name


def greet(name):
    return "hello, " + name
