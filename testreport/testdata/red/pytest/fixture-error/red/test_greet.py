from greet import hello


def test_hello_guest(guest):
    assert hello(guest) == "hi, guest"
