import greet

shout = greet.shout


def test_shout():
    assert shout("Ada") == "HI, ADA"
