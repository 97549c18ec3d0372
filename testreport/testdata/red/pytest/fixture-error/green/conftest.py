import pytest


@pytest.fixture
def guest():
    return "guest"
