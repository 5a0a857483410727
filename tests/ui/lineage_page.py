"""What a person does on Dagster's global asset lineage page (dagster-webserver 1.13), in Chromium.

Route `/asset-groups` shows the global asset lineage with each group collapsed; the graph's
settings menu (the icon-only gear button at the bottom right) has "Expand all groups". At the
zoom that fits the whole graph, long asset names are shortened in the middle
("classifi…_sessions").
"""

from __future__ import annotations

import json

from headless_chromium import HeadlessChromium, wait_until

LINEAGE_ROUTE = "/asset-groups"
DISMISS_LABELS = ("skip", "dismiss", "close", "done", "got it", "not now", "no thanks")

# Each finder is a JavaScript expression yielding one element or null.
GRAPH_SETTINGS_BUTTON = (
    "Array.from(document.querySelectorAll('button'))"
    ".find(b => b.querySelector('[aria-label=\"settings\"]') && !b.innerText.trim())"
)
EXPAND_ALL_GROUPS = (
    "Array.from(document.querySelectorAll('[role=menuitem]'))"
    ".find(e => e.innerText.includes('Expand all groups'))"
)
FIRST_VISIT_DISMISS = (
    "Array.from(document.querySelectorAll('.bp5-dialog button, [role=dialog]:not(.dagster-popover) button'))"
    f".find(b => {json.dumps(list(DISMISS_LABELS))}.includes(b.innerText.trim().toLowerCase()))"
)
ASSET_NODE_LABELS = (
    "Array.from(document.querySelectorAll('svg foreignObject [class*=\"AssetNode_assetName\"]'))"
    ".map(e => e.textContent.trim())"
)

GRAPH_GEOMETRY = "Array.from(document.querySelectorAll('svg path')).map(p => p.getAttribute('d')).join('|')"


def centre_of(browser: HeadlessChromium, finder: str) -> tuple[float, float] | None:
    """The on-screen centre of the element `finder` yields, or None when it is absent or hidden."""
    return browser.evaluate(
        f"(() => {{ const e = {finder}; if (!e) return null; const r = e.getBoundingClientRect();"
        " return r.width && r.height ? [r.x + r.width / 2, r.y + r.height / 2] : null; })()"
    )


def click(browser: HeadlessChromium, finder: str, *, timeout: float) -> None:
    point = wait_until(lambda: centre_of(browser, finder), timeout=timeout)
    assert point, f"nothing to click: {finder}"
    browser.click_at(*point)


def dismiss_first_visit_dialog(browser: HeadlessChromium, *, grace: float = 3) -> bool:
    """Click the dismiss button ("Skip", ...) of a first-visit dialog that opens within `grace` s."""
    point = wait_until(lambda: centre_of(browser, FIRST_VISIT_DISMISS), timeout=grace)
    if point:
        browser.click_at(*point)
        wait_until(lambda: centre_of(browser, FIRST_VISIT_DISMISS) is None, timeout=10)
    return bool(point)


def expand_all_groups(browser: HeadlessChromium) -> None:
    click(browser, GRAPH_SETTINGS_BUTTON, timeout=60)
    click(browser, EXPAND_ALL_GROUPS, timeout=10)
    browser.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Escape", "code": "Escape"})
    browser.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Escape", "code": "Escape"})


def wait_until_graph_is_still(browser: HeadlessChromium, *, timeout: float = 10) -> None:
    """Let the graph's layout animation finish: the edges are where they were half a second ago."""
    last = [None]

    def still() -> bool:
        current = browser.evaluate(GRAPH_GEOMETRY)
        unchanged, last[0] = current == last[0], current
        return unchanged

    wait_until(still, timeout=timeout, interval=0.5)


def asset_node_labels(browser: HeadlessChromium) -> list[str]:
    return browser.evaluate(ASSET_NODE_LABELS) or []


def label_names(label: str, name: str) -> bool:
    """True when a graph label shows `name`, whole or shortened in the middle."""
    if "…" not in label:
        return label == name
    head, tail = label.split("…", 1)
    return bool(head and tail) and name.startswith(head) and name.endswith(tail) and len(name) > len(label)


def unmatched_assets(labels: list[str], expected: list[str]) -> list[str]:
    """Expected asset names no label shows; each label stands for one name, whole labels first."""
    remaining = list(labels)
    missing = []
    shortened = []
    for name in expected:
        if name in remaining:
            remaining.remove(name)
        else:
            shortened.append(name)
    for name in shortened:
        match = next((label for label in remaining if label_names(label, name)), None)
        if match is None:
            missing.append(name)
        else:
            remaining.remove(match)
    return missing
