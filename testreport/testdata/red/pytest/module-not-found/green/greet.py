def hello(name):
    return "hi, " + name
