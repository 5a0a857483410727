"""New rollback and hotfix events in the deploy source, for the sensor (read-only, cursor-based)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ingest.config import IngestConfig
from ingest.models import RawRecord
from ingest.readers import list_source_files, read_file

from pipelines.store.repository import day_of


@dataclass(frozen=True)
class DeployEvent:
    id: str
    kind: str
    day: str


def new_deploy_events(drop: Path, config: IngestConfig, cursor: str | None) -> tuple[list[DeployEvent], str]:
    """Events past the cursor (a JSON map of file -> byte offset) and the advanced cursor."""
    offsets: dict[str, int] = json.loads(cursor) if cursor else {}
    events: list[DeployEvent] = []
    for path in list_source_files(drop, "deploys"):
        relative = path.relative_to(drop).as_posix()
        start = offsets.get(relative, 0)
        if start > path.stat().st_size:  # the file was replaced: read it again
            start = 0
        end = start
        for item, end in read_file("deploys", path, drop, config, start_byte=start):
            if isinstance(item, RawRecord) and item.payload.get("kind") in ("rollback", "hotfix"):
                day = day_of(item.occurred_at)
                if day:
                    events.append(DeployEvent(id=item.external_id, kind=item.payload["kind"], day=day))
        offsets[relative] = end
    return events, json.dumps(offsets, sort_keys=True)
