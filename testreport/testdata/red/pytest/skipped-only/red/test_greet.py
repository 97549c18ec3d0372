import pytest

from greet import hello


@pytest.mark.skip(reason="greeting not decided")
def test_hello():
    assert hello("Ada") == "hello, Ada"
