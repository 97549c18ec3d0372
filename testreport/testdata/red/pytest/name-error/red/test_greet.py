from greet import *


def test_bye():
    assert bye("Ada") == "bye, Ada"
