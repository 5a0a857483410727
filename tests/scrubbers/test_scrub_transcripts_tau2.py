"""The tau2-bench transcript set: laid out as tau2 records simulations, in the shapes the tau-bench set does not use."""

import ast
import copy
import json

import pytest

from scrubbers.transcripts import score
from scrubbers.transcripts_tau2 import DEFAULT_FOLDER, build

ADDRESS = {"address1": "986 Sunset Drive", "address2": "Suite 259", "city": "Denver", "country": "USA", "state": "CO", "zip": "80279"}
USERS = {
    "noah_brown_6181": {"user_id": "noah_brown_6181", "name": {"first_name": "Noah", "last_name": "Brown"}, "address": ADDRESS,
                        "email": "noah.brown7922@example.com", "orders": ["#W7678072"],
                        "payment_methods": {"gift_card_7245904": {"source": "gift_card", "id": "gift_card_7245904"}}},
    "olga_petrova_1234": {"user_id": "olga_petrova_1234", "name": {"first_name": "Olga", "last_name": "Petrova"},
                          "address": {**ADDRESS, "address1": "12 Oak Road"}, "email": "olga@example.com", "orders": [],
                          "payment_methods": {}},
}
ORDERS = {"#W7678072": {"order_id": "#W7678072", "user_id": "noah_brown_6181", "address": ADDRESS,
                        "items": [{"name": "Garden Hose", "product_id": "6679515468", "item_id": "5206946487", "price": 95.08,
                                   "options": {"length": "50ft", "color": "brown"}}],
                        "status": "delivered", "payment_history": [{"transaction_type": "payment", "amount": 95.08,
                                                                    "payment_method_id": "gift_card_7245904"}]}}
DB = {"users": USERS, "orders": ORDERS, "products": {}}


def _task(index: int) -> dict:
    return {"id": str(index), "user_scenario": {"instructions": {"reason_for_call": "You want to return the hose.",
                                                                 "known_info": "You are Noah Brown in zip code 80279."}},
            "evaluation_criteria": {"actions": [
                {"name": "find_user_id_by_name_zip", "arguments": {"first_name": "Noah", "last_name": "Brown", "zip": "80279"}},
                {"name": "get_user_details", "arguments": {"user_id": "noah_brown_6181"}},
                {"name": "get_order_details", "arguments": {"order_id": "#W7678072"}}]}}


def test_transcripts_are_laid_out_as_tau2_records_them_in_three_tool_result_styles() -> None:
    transcripts = build([_task(i) for i in range(3)], DB)
    assert [t.messages[0]["task_id"] for t in transcripts] == ["0", "1", "2"]
    results = [[m["content"] for m in t.messages[1:] if m["role"] == "tool"][-1] for t in transcripts]
    assert json.loads(results[0]) == json.loads(results[1]) == ast.literal_eval(results[2]) == ORDERS["#W7678072"]
    assert "\n  " in results[1] and "'order_id'" in results[2]
    call = next(m for m in transcripts[0].messages[1:] if m.get("tool_calls"))["tool_calls"][0]
    assert call["arguments"]["first_name"] == "Noah" and call["requestor"] == "assistant"
    text = "\n".join(m["content"] or "" for m in transcripts[0].messages[1:])
    assert "i'm noah brown, zip 80279" in text and "**Noah Brown**" in text and "noah.brown7922@example.com" in text
    assert "Olga Petrova" in text and "Olga Petrova" in transcripts[0].personal  # a third party must go too
    assert "gift_card_7245904" in transcripts[0].protected and "noah_brown_6181" not in transcripts[0].protected


def test_a_repr_tool_result_is_scored_as_structure() -> None:
    (transcript,) = [t for t in build([_task(i) for i in range(3)], DB) if t.messages[0]["task_id"] == "2"]
    untouched = score([transcript], [copy.deepcopy(transcript.messages)])
    assert untouched.structure_broken == 0 and set(untouched.leaked) >= {"name", "user id", "street line"}
    renamed = json.loads(json.dumps(transcript.messages).replace("'price'", "'moreno'"))
    assert score([transcript], [renamed]).structure_broken == 1


@pytest.mark.skipif(not (DEFAULT_FOLDER / "tasks.json").is_file(), reason="tau2-bench retail data is not in ../shared")
def test_the_tau2_set_covers_most_tasks() -> None:
    from scrubbers.transcripts_tau2 import load

    transcripts = load()
    assert len(transcripts) > 100 and all(t.user_id in t.personal for t in transcripts)


@pytest.mark.skipif(not (DEFAULT_FOLDER / "tasks.json").is_file(), reason="tau2-bench retail data is not in ../shared")
def test_tau2_transcripts_through_scrub_hold_their_figures(scrubber) -> None:
    from scrubbers.transcripts_tau2 import load

    transcripts = load()
    (scrubbed,), _ = scrubber.scrub_json([[t.messages for t in transcripts]])
    result = score(transcripts, scrubbed)
    assert result.transcripts == 106 and result.structure_broken == 0 and not result.leaked  # 4 broken before (repr results)
    assert result.user_ids_same_shape == result.user_ids == 106 and result.streets_replaced == result.streets
    assert result.protected_kept == result.protected > 19000 and result.kept >= 0.999  # 99.4% before
    assert result.goods_kept == result.goods and result.zips_misshapen == 0
    assert result.localities_left <= 13 and result.zips_of_towns == result.addresses > 400
