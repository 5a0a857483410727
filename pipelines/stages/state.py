"""The product's own database as the stages read it: snapshots, personal fields, real people, ids."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ingest.models import StateRows
from ingest.state import StateMapping, StateSource, open_state


class AppState:
    """Any SQLAlchemy URL or folder of JSON documents, described by a mapping file; read only."""

    def __init__(self, source: StateSource) -> None:
        self.source = source
        self._identifiers: frozenset[str] | None = None

    @classmethod
    def open(cls, location: str, mapping_path: Path) -> AppState:
        return cls(open_state(location, StateMapping.from_yaml(mapping_path)))

    def snapshot(self, entity_ids: dict[str, list[str]], as_of: datetime | None) -> StateRows:
        return self.source.snapshot(entity_ids, as_of)

    def pii_fields(self) -> dict[str, dict[str, str]]:
        return {kind: self.source.pii_fields(kind) for kind in sorted(self.source.mapping.kinds)}

    def people_rows(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """(kind, row) for every row with a person's name field: the names stand-ins must avoid."""
        return self.source.rows_with_pii({"PERSON"})

    def identifiers(self) -> frozenset[str]:
        """Ids the state holds (item, product, order ids of any shape): the scrubber leaves them alone.
        Read once per opened state: a worker running several days reads them once."""
        if self._identifiers is None:
            self._identifiers = self.source.identifiers()
        return self._identifiers
