"""What one run's stages share, built once from the loaded configuration.

The configuration is read and validated by `pipelines.config`; everything the stages derive
from it is made here, once, when first needed: the secret (read from the environment or its
file), the scrubbers, the domain, the taxonomy, where the domain's concepts live in the mapped
product, and the settings' digest. Nothing is cached under a key made of the configuration or
the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from functools import cached_property
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingest.models import canonical_json, sha256_hex
from ingest.state_mapping import StateMapping
from taskgen.taxonomy import Taxonomy
from taskgen.domains import Domain

from pipelines.config import AppConfig
from pipelines.stages.state import AppState

if TYPE_CHECKING:
    from scrubbers import Scrubber


class RunContext:
    """The loaded configuration and the objects made from it, for the stages of one or more runs."""

    def __init__(self, config: AppConfig) -> None:
        self.config = config
        self._scrubbers: dict[AppState, Scrubber] = {}
        self._real_people: dict[AppState, frozenset[str]] = {}

    @property
    def output(self) -> Path:
        """The folder tasks, seeds and the manifest are written to."""
        return self.config.path(self.config.output)

    @cached_property
    def secret(self) -> bytes:
        """The pseudonym secret, read once (a ConfigError says where it was looked for)."""
        return self.config.read_secret()

    @cached_property
    def scrubber(self) -> Scrubber:
        """A scrubber that knows no state database (the `scrub` and `check` commands)."""
        from scrubbers import Scrubber  # imported here: Presidio and spaCy load only where they work

        return Scrubber(self.config.scrub, self.secret)

    def scrubber_for(self, state: AppState) -> Scrubber:
        """The scrub stage's scrubber: it leaves the state database's ids alone (made once per state)."""
        if state not in self._scrubbers:
            from scrubbers import Scrubber

            self._scrubbers[state] = Scrubber(self.config.scrub, self.secret, state.identifiers())
        return self._scrubbers[state]

    @cached_property
    def domain(self) -> Domain:
        return self.config.taskgen.load_domain()

    @cached_property
    def taxonomy(self) -> Taxonomy:
        return self.config.taskgen.load_taxonomy()

    @cached_property
    def state_mapping(self) -> StateMapping:
        return StateMapping.from_yaml(self.config.path(self.config.state.mapping))

    @cached_property
    def seed_schema(self) -> dict[str, Any]:
        """Where the domain's concepts live in the mapped product (roles and order-id patterns), as the
        seeds carry it; a mapping whose roles do not resolve raises StateMappingError naming the role."""
        schema = self.domain.seed_schema(self.state_mapping, self.config.ingest.entity_patterns)
        return json.loads(canonical_json(schema))

    @cached_property
    def updated_by(self) -> dict[str, Any]:
        """Per state kind, the field that says which session last changed a row (the mapping's `updated_by`)."""
        kinds = self.state_mapping.kinds
        return json.loads(canonical_json({name: kind.updated_by for name, kind in kinds.items() if kind.updated_by}))

    @cached_property
    def settings_digest(self) -> str:
        """What, besides the records, decides a partition's output: settings, code version, secret."""
        settings = canonical_json(
            {
                "ingest": self.config.ingest.model_dump(mode="json"),
                "scrub": self.config.scrub.model_dump(mode="json"),
                "taskgen": self.config.taskgen.model_dump(mode="json"),
                "version": version("trace2task"),
            }
        )
        keyed = hmac.new(self.secret, b"trace2task partition fingerprint", hashlib.sha256).hexdigest()
        return sha256_hex(settings + keyed)

    def real_people(self, state: AppState) -> frozenset[str]:
        """Keyed digests of the state database's people, read once: a worker running several
        days reads them once."""
        if state not in self._real_people:
            self._real_people[state] = self.scrubber_for(state).real_people(state.people_rows(), state.pii_fields())
        return self._real_people[state]
