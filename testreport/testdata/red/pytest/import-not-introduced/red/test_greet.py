from greet import helo


def test_hello():
    assert helo("Ada") == "hi, Ada"
