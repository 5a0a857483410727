"""Garbage collection paced by chunks (`ingest.garbage`): off inside the block, as it was after,
and the chunk's cyclic garbage still collected, so memory stays bounded by the chunk."""

import gc
import weakref

import pytest

from ingest import garbage


class _Node:
    pass


def _cycle() -> weakref.ref:
    node = _Node()
    node.self = node  # freed by the collector only, never by reference counting
    return weakref.ref(node)


def test_paced_turns_automatic_collection_off_and_back_on_even_when_the_block_raises():
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with garbage.paced():
            assert not gc.isenabled()
            raise RuntimeError("a chunk failed")
    assert gc.isenabled()


def test_paced_leaves_collection_off_when_it_was_off_before():
    gc.disable()
    try:
        with garbage.paced():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_young_collects_the_cycles_made_since_the_last_collection():
    with garbage.paced():
        ref = _cycle()
        for _ in range(10_000):  # allocations that would have set off an automatic collection
            [object()]
        assert ref() is not None
        garbage.young()
        assert ref() is None
