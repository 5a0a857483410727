"""A seed whose owner came with as many rows as the mapping's cap says so (issue #12: the snapshot's cut is flagged)."""

from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import yaml

from ingest.models import Session
from ingest.state_mapping import StateMapping
from pipelines.stages.freeze import incident_seed
from taskgen.domains import get_domain

MAPPING = Path(__file__).parents[2] / "docs" / "examples" / "demo-state.mapping.yaml"
CLOCK = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)


def _state(orders: int) -> dict:
    state = {"customer": {"cus_1": {"id": "cus_1", "name": "A B", "created_at": "2025-01-01T00:00:00Z"}}, "order": {}}
    for number in range(orders):
        order_id = f"#W100000{number}"
        state["order"][order_id] = {"id": order_id, "customer_id": "cus_1", "status": "delivered", "total_cents": 100,
                                    "created_at": "2026-11-01T00:00:00Z", "delivered_at": "2026-11-05T00:00:00Z"}
    return state


def test_an_owner_holding_its_cap_of_rows_makes_the_seed_uncertain():
    document = yaml.safe_load(MAPPING.read_text(encoding="utf-8"))
    document["kinds"]["customer"]["max_owned_rows"] = 2
    run = SimpleNamespace(state_mapping=StateMapping.from_document(document), updated_by={}, domain=get_domain("retail"), seed_schema={})
    session = Session(session_id="s1", trace_ids=["t1"], started_at=CLOCK, entity_ids={"order": ["#W1000000"]})
    at_cap = incident_seed(session, _state(2), run, "2026-11-20")
    assert at_cap.uncertain == ["customer cus_1: holds 2 order rows, the mapping's max_owned_rows: any beyond the cap are left out of the seed"]
    assert incident_seed(session, _state(1), run, "2026-11-20").uncertain == []
