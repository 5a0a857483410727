"""The Dagster UI shows the whole asset lineage of a real run, and the page reaches nothing outside.

The demo drop goes through `trace2task run --all` (`demo_cli_run`, shared with the nightly and
on-call tests); the Dagster webserver opens a copy of that run's instance; headless Chromium loads
the global asset lineage, dismisses a first-visit dialog if one shows, expands every group and
finds every pipeline asset on the graph. The screenshot is kept as tests/artifacts/lineage.png.
"""

from __future__ import annotations

import pytest

from headless_chromium import HeadlessChromium, chromium_executable, is_outside, wait_until
from lineage_page import (
    GRAPH_SETTINGS_BUTTON,
    LINEAGE_ROUTE,
    centre_of,
    asset_node_labels,
    dismiss_first_visit_dialog,
    expand_all_groups,
    unmatched_assets,
    wait_until_graph_is_still,
)
from demo_world import ARTIFACTS, DEMO_CLI_RUN_GROUP, copy_world
from webserver_process import dagster_webserver

PIPELINE_ASSETS = [
    "raw_tickets",
    "raw_traces",
    "raw_error_logs",
    "raw_escalations",
    "raw_deploys",
    "sessions",
    "classified_sessions",
    "stratified_sample",
    "scrubbed_sessions",
    "seeds",
    "draft_tasks",
    "task_validation",
]

CHROMIUM = chromium_executable()

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.xdist_group(DEMO_CLI_RUN_GROUP),
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def lineage_page(tmp_path_factory, demo_cli_run):
    """The lineage page after a person's clicks: asset labels on the graph and every requested URL."""
    folder = tmp_path_factory.mktemp("lineage")
    run = copy_world(demo_cli_run[0], folder / "run")
    with dagster_webserver(run, log_path=folder / "webserver.log") as base_url:
        with HeadlessChromium(CHROMIUM, folder / "chromium-profile") as browser:
            browser.navigate(base_url + LINEAGE_ROUTE)
            assert wait_until(lambda: centre_of(browser, GRAPH_SETTINGS_BUTTON), timeout=90), "no lineage graph"
            dismiss_first_visit_dialog(browser)
            expand_all_groups(browser)

            def every_asset_shown() -> list[str] | None:
                labels = asset_node_labels(browser)
                return labels if labels and not unmatched_assets(labels, PIPELINE_ASSETS) else None

            labels = wait_until(every_asset_shown, timeout=30) or asset_node_labels(browser)
            wait_until_graph_is_still(browser)
            browser.screenshot(ARTIFACTS / "lineage.png")
            return {"labels": labels, "requested_urls": browser.requested_urls}


def test_every_pipeline_asset_is_on_the_lineage_graph(lineage_page):
    labels = lineage_page["labels"]
    assert unmatched_assets(labels, PIPELINE_ASSETS) == [], f"graph shows {labels}"
    assert len(labels) == len(PIPELINE_ASSETS), f"graph shows {labels}"
    assert (ARTIFACTS / "lineage.png").stat().st_size > 10_000


def test_the_page_requests_nothing_outside_this_machine(lineage_page):
    requested = lineage_page["requested_urls"]
    assert any(url.endswith("/graphql") for url in requested), "the page never queried the webserver"
    assert [url for url in requested if is_outside(url)] == []
