def hello(name):
    return "hi, " + name


def bye(name):
    return "bye, " + name
