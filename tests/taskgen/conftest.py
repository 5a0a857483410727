"""Fixtures for taskgen tests: the retail domain, its taxonomy, and one drafted pair per fixture session."""

from __future__ import annotations

import pytest

from retail_fixtures import CLOCK, make_sessions, make_state
from taskgen.classify import classify
from taskgen.taxonomy import Taxonomy
from taskgen.domains import get_domain
from taskgen.draft import draft_pair, starting_seed


@pytest.fixture(scope="session")
def domain():
    return get_domain("retail")


@pytest.fixture(scope="session")
def taxonomy(domain):
    return Taxonomy.from_yaml(domain.taxonomy_path())


@pytest.fixture()
def state():
    return make_state()


@pytest.fixture()
def sessions():
    return make_sessions()


@pytest.fixture(scope="session")
def drafted(domain, taxonomy):
    """(session, classification, seed, pair) for every fixture session, all on one shared seed (with its canaries)."""
    seed = starting_seed(make_state(), CLOCK, domain)
    rows = []
    for session in make_sessions():
        classification = classify(session, taxonomy)
        rows.append((session, classification, seed, draft_pair(session, classification, seed, domain)))
    return rows

