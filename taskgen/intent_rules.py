"""Small intent rules kept out of `taskgen.classify` (which is at its size limit).

`leads_to`: a keyword tie between two intents, one of which follows from the other (`consequences` in
`taxonomy.yaml`: a refund follows from a return, a cancellation or an exchange), goes to the one it follows
from. "Return the puzzle and the book, refund to my original payment" names a return and a refund once each:
the refund is how the return pays back, and the request is the return (the taxonomy's definitions: a
return sends delivered items back for money; a refund is money back with nothing sent back).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from taskgen.taxonomy import Taxonomy


def leads_to(intent: str, other: str, taxonomy: Taxonomy) -> bool:
    """`other` follows from `intent` (`taxonomy.consequences[other]` lists it): on a tie, `intent` is the request."""
    return intent in taxonomy.consequences.get(other, ())
