"""EntityFinder.find_in_payload: a raw record's ids without assembling its session."""

import json

from ingest.config import IngestConfig
from ingest.entities import EntityFinder


def test_ids_by_key_and_by_pattern_anywhere_in_a_payload_including_json_inside_strings():
    finder = EntityFinder(IngestConfig().entity_patterns)
    payload = {
        "attributes": [
            {"key": "gen_ai.prompt", "value": {"stringValue": json.dumps([{"role": "user", "content": "Where is #W1234567?"}])}},
            {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps({"order_id": "#W7654321", "user_id": "u_9"})}},
        ],
        "transcript": [{"role": "user", "text": "and #W1111111 too"}],
    }
    assert finder.find_in_payload(payload) == {"customer": ["u_9"], "order": ["#W1111111", "#W1234567", "#W7654321"]}
    assert finder.find_in_payload({"text": "no ids here"}) == {}
