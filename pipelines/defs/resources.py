"""Dagster resources: one per external thing, each with a file-drop or fake implementation.

- `SettingsResource`: the validated `trace2task.yaml` (path given by the run, never by import)
  and the run context made from it (`pipelines.stages.context.RunContext`).
- `IncidentSource` (abstract) / `DropFolderSource` / `ZendeskApiSource`: where incident records
  come from; lands new ones into the raw zone.
- `StateDatabase` (abstract) / `MappedStateDatabase`: the product's own state, read only, opened
  as the plain `pipelines.stages.state.AppState` the stages take.
- `StoreResource`: the task store and the raw landing zone.
- `RunScope`: empty for the nightly refresh; the incident id and its sessions on the on-call path.
"""


from abc import abstractmethod
from functools import lru_cache
from pathlib import Path

from dagster import ConfigurableResource

from ingest.zendesk_http import ZendeskHttpConfig, fetch_incremental_tickets, resume_point

from pipelines.config import AppConfig, load_config
from pipelines.stages.context import RunContext
from pipelines.stages.state import AppState
from pipelines.stages.land import LandingResult, land_source
from pipelines.stages.partition import configured_first_day
from pipelines.store.repository import Store


@lru_cache(maxsize=8)
def _cached_context(path: str) -> RunContext:
    """One run context per configuration file and process: a worker running several days
    loads the configuration, the secret, the scrubber and the domain once."""
    return RunContext(load_config(path))


@lru_cache(maxsize=8)
def _cached_store(url: str, raw_url: str) -> Store:
    return Store(url, raw_url)


class SettingsResource(ConfigurableResource):
    config_path: str = "trace2task.yaml"

    def context(self) -> RunContext:
        return _cached_context(str(Path(self.config_path).resolve()))

    def load(self) -> AppConfig:
        return self.context().config


class StoreResource(ConfigurableResource):
    settings: SettingsResource

    def get(self) -> Store:
        config = self.settings.load()
        return _cached_store(config.sqlalchemy_url(config.store.url), config.sqlalchemy_url(config.store.raw_url))


class IncidentSource(ConfigurableResource):
    """Where the incident records of one source come from."""

    @abstractmethod
    def land(self, store: Store, source: str, *, run_id: str, day: str) -> LandingResult: ...


class DropFolderSource(IncidentSource):
    """A drop folder with one subfolder per source (the configured `drop`, unless `root` is set)."""

    settings: SettingsResource
    root: str = ""

    def folder(self) -> Path:
        config = self.settings.load()
        return Path(self.root) if self.root else config.path(config.drop)

    def land(self, store: Store, source: str, *, run_id: str, day: str) -> LandingResult:
        config = self.settings.load()
        return land_source(store, self.folder(), source, config.ingest, run_id=run_id, default_day=day,
                           first_day=configured_first_day(config))


class ZendeskApiSource(IncidentSource):
    """Tickets from the Zendesk incremental export API, fetched into the drop's tickets/ folder
    from where the last fetch ended, then landed like the file drop; other sources come from the
    drop. Credentials are read from the named environment variables when the run fetches."""

    settings: SettingsResource
    base_url: str
    email_env: str = "ZENDESK_EMAIL"
    token_env: str = "ZENDESK_API_TOKEN"

    def land(self, store: Store, source: str, *, run_id: str, day: str) -> LandingResult:
        drop = DropFolderSource(settings=self.settings)
        if source == "tickets":
            start_time, first_page = resume_point(drop.folder())
            fetch_incremental_tickets(
                ZendeskHttpConfig(base_url=self.base_url, email_env=self.email_env, token_env=self.token_env),
                drop.folder(), start_time=start_time, first_page=first_page,
            )
        return drop.land(store, source, run_id=run_id, day=day)


class StateDatabase(ConfigurableResource):
    """The product's own database, read only."""

    @abstractmethod
    def open(self) -> AppState: ...


@lru_cache(maxsize=8)
def _cached_state(location: str, mapping_path: str) -> AppState:
    return AppState.open(location, Path(mapping_path))


class MappedStateDatabase(StateDatabase):
    """Any SQLAlchemy URL or folder of JSON documents, described by a mapping file."""

    settings: SettingsResource

    def open(self) -> AppState:
        config = self.settings.load()
        return _cached_state(config.state_location(), str(config.path(config.state.mapping)))


class RunScope(ConfigurableResource):
    """Empty for the nightly refresh; on the on-call path, the incident's id.

    The id may be a ticket, escalation or deploy event id, a trace id or a session id; the
    sessions it names are looked up among the landed records.
    """

    incident_id: str = ""

    @property
    def name(self) -> str:
        return self.incident_id or "nightly"


def resources_for(config_path: str, incident_id: str = "") -> dict[str, ConfigurableResource]:
    """The resources for one configuration file, ready for `materialize()` (tests, notebooks)."""
    settings = SettingsResource(config_path=config_path)
    return {
        "settings": settings,
        "store": StoreResource(settings=settings),
        "incidents": DropFolderSource(settings=settings),
        "state": MappedStateDatabase(settings=settings),
        "scope": RunScope(incident_id=incident_id),
    }


def pipeline_resources() -> dict[str, ConfigurableResource]:
    """The definitions' resources: each run gives the configuration file and the incident id."""
    settings = SettingsResource.configure_at_launch()
    return {
        "settings": settings,
        "store": StoreResource(settings=settings),
        "incidents": DropFolderSource(settings=settings),
        "state": MappedStateDatabase(settings=settings),
        "scope": RunScope.configure_at_launch(),
    }
