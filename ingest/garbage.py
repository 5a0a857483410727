"""Garbage collection paced by the work's own chunks, for loops that build and drop many objects.

CPython's automatic collector runs a full collection whenever enough objects have survived a
few young collections; a chunked assembly keeps each chunk's decoded records alive for the
chunk, so they survive, and the full collections (every live object traversed, the chunk's
and the rest of the process's) took about a third of assembly's CPU time. Inside `paced()`
automatic collection is off; the caller calls `young()` after each chunk, which collects only
what was allocated since the last call (the chunk's cyclic garbage, if any), so memory stays
bounded by the chunk. Reference counting frees everything else as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paced() -> Iterator[None]:
    """Automatic collection off inside the block; as it was before afterwards (an exception too)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def young() -> None:
    """Collect the objects allocated since the last collection (the youngest generation only)."""
    gc.collect(0)
