"""Shapes of published agent transcripts the scrubber must read as they are (tau2-bench's layout:
`scrubbers/transcripts_tau2.py`): tool results printed as Python dicts, markdown, customers typing."""

import ast
import json
import re

ADDRESS = {"address1": "986 Sunset Drive", "address2": "Suite 259", "city": "Denver", "country": "USA", "state": "CO", "zip": "80279"}
ORDER = {"order_id": "#W2611340", "user_id": "noah_brown_6181", "address": ADDRESS,
         "items": [{"name": "Garden Hose", "product_id": "6679515468", "item_id": "5206946487", "price": 95.08,
                    "options": {"length": "50ft", "color": "brown"}}],
         "status": "delivered", "fulfillments": [{"tracking_id": ["357962501027"], "item_ids": ["5206946487"]}],
         "payment_history": [{"transaction_type": "payment", "amount": 95.08, "payment_method_id": "gift_card_7245904"}]}


def test_a_tool_result_printed_as_a_python_dict_is_scrubbed_as_structure(scrubber) -> None:
    (out,), _ = scrubber.scrub_json([[{"role": "tool", "content": repr(ORDER)}]])
    text = out[0]["content"]
    new = ast.literal_eval(text)
    assert text == repr(new)  # written back as Python prints it
    assert list(new) == list(ORDER) and list(new["address"]) == list(ADDRESS)
    assert new["items"] == ORDER["items"] and new["fulfillments"] == ORDER["fulfillments"]  # goods, ids, tracking kept
    assert new["payment_history"] == ORDER["payment_history"] and new["status"] == "delivered"
    assert re.fullmatch(r"[a-z]+_[a-z]+_\d{4}", new["user_id"]) and new["user_id"] != ORDER["user_id"]
    assert all(new["address"][k] != ADDRESS[k] for k in ("address1", "city", "zip")) and re.fullmatch(r"\d{5}", new["address"]["zip"])


def test_text_that_only_looks_like_a_python_dict_stays_free_text(scrubber) -> None:
    (out,), _ = scrubber.scrub_json([["{'a': 1,  'b': 2}", "[1, 2, 3]"]])
    assert out == ["{'a': 1,  'b': 2}", "[1, 2, 3]"]


def test_a_name_typed_in_lower_case_that_is_a_common_word_is_not_searched_for_as_the_word(scrubber) -> None:
    """'my friend amelia brown': her surname is found elsewhere as 'Brown', never as the colour 'brown' of a product."""
    texts = ["my friend amelia brown said i should call", "I see the Garden Hose in brown, 50ft.", "Thanks, Brown."]
    (out, _goods), _ = scrubber.scrub_json([texts, {"name": "Garden Hose", "price": 95.08, "options": {"color": "brown"}}])
    assert "amelia brown" not in out[0] and out[1] == texts[1] and "Brown" not in out[2]
    (out,), _ = scrubber.scrub_json([["my friend emma ito said i should call", "ask emma about it"]])
    assert "emma" not in out[1]  # no label 'emma': her name is searched for in any case


def test_a_customer_s_typo_is_no_name_and_a_rare_name_still_is(scrubber) -> None:
    texts = ["i wnat to return the cleaner becuase it is broken", "you recieved the order, woudl you check",
             "thx, harinakshi", "ask natasja about it"]
    (out,), _ = scrubber.scrub_json([texts])
    assert out[:2] == texts[:2]
    assert "harinakshi" not in out[2] and "natasja" not in out[3]


def test_after_an_exclamation_a_capitalised_stop_word_opens_a_sentence(scrubber) -> None:
    texts = ["Hi! How can I help you today?", "Thanks! Could you confirm the e-mail on the account?",
             "Hi! Jane here, my order is late.", "Hi Will, thanks for calling."]
    (out,), _ = scrubber.scrub_json([texts])
    assert out[:2] == texts[:2]
    assert "Jane" not in out[2] and "Will" not in out[3]
