"""Test programs for memplan: a seeded generator of bufferized programs."""
