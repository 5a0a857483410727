"""The browser test's own judgements: which URLs leave the machine, which graph label shows which asset."""

from headless_chromium import is_outside
from lineage_page import label_names, unmatched_assets


def test_shortened_labels_are_matched_to_the_one_name_they_show():
    assert label_names("classifi…_sessions", "classified_sessions")
    assert not label_names("classifi…_sessions", "sessions")
    assert not label_names("raw_tickets", "raw_traces")
    assert unmatched_assets(["sessions", "classifi…_sessions"], ["classified_sessions", "sessions"]) == []
    assert unmatched_assets(["classifi…_sessions"], ["classified_sessions", "sessions"]) == ["sessions"]
    assert unmatched_assets(["seeds", "seeds"], ["seeds", "draft_tasks"]) == ["draft_tasks"]


def test_only_loopback_hosts_count_as_inside():
    assert not is_outside("http://127.0.0.1:3000/graphql")
    assert not is_outside("ws://localhost:3000/graphql")
    assert not is_outside("data:font/woff2;base64,AAAA")
    assert not is_outside("blob:http://127.0.0.1:3000/49cd6c18")
    assert is_outside("https://dagster.io/oss-telemetry.js")
    assert is_outside("http://127.0.0.1.example.com/")
