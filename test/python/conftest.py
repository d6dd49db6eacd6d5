import pytest
from mlir import ir


@pytest.fixture
def ctx():
    with ir.Context() as context, ir.Location.unknown():
        yield context
