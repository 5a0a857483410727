"""Order ids in the customer's words: the configured pattern, and the same id written without its sign."""

from __future__ import annotations

from ingest.config import EntityRule
from ingest.entities import EntityFinder, ids_in_text
from ingest.models import Turn
from taskgen.domains.retail.schema import RetailSchema


def test_an_id_written_without_its_leading_sign_is_the_same_id():
    text = "Change the earbuds in order W5061109, and #W1234567 too; XW7654321 and W12 are not ids."
    assert [found for _, found in ids_in_text(r"#W\d{7}", text)] == ["#W5061109", "#W1234567"]
    assert RetailSchema().order_ids_in(text) == ["#W5061109", "#W1234567"]
    finder = EntityFinder({"order": EntityRule(text_patterns=[r"#W\d{7}"])})
    assert finder.find([Turn(role="user", text=text, source="traces")], []) == {"order": ["#W1234567", "#W5061109"]}


def test_a_pattern_without_a_sign_is_matched_as_it_is():
    assert [found for _, found in ids_in_text(r"PO-\d{7}", "PO-1234567 or 1234567")] == ["PO-1234567"]
