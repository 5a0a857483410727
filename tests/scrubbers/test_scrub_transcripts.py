"""The agent-transcript measurement: each of its counts can fail, and on tau-bench's retail data
(nobody here wrote it) the scrubber meets the issue's goals."""

import copy
import json

import pytest

from scrubbers.transcripts import DEFAULT_FOLDER, build, load, score

USERS = {"noah_brown_6181": {"name": {"first_name": "Noah", "last_name": "Brown"},
                             "address": {"address1": "986 Sunset Drive", "address2": "Suite 259", "city": "Denver",
                                         "country": "USA", "state": "CO", "zip": "80279"},
                             "email": "noah.brown7922@example.com", "orders": ["#W7678072"],
                             "payment_methods": {"credit_card_7815826": {"source": "credit_card", "brand": "visa", "last_four": "9212",
                                                                         "id": "credit_card_7815826"}}}}
ORDERS = {"#W7678072": {"order_id": "#W7678072", "user_id": "noah_brown_6181", "address": USERS["noah_brown_6181"]["address"],
                        "items": [{"name": "Garden Hose", "product_id": "6679515468", "item_id": "5206946487", "price": 95.08,
                                   "options": {"length": "50ft", "color": "brown"}}],
                        "status": "delivered", "payment_history": []}}
TASK = {"user_id": "noah_brown_6181", "instruction": "You are Noah Brown in 80279. Return the hose of order #W7678072.",
        "actions": [{"name": "find_user_id_by_name_zip", "arguments": {"first_name": "Noah", "last_name": "Brown", "zip": "80279"}},
                    {"name": "get_user_details", "arguments": {"user_id": "noah_brown_6181"}},
                    {"name": "get_order_details", "arguments": {"order_id": "#W7678072"}}]}


def _transcript():
    (transcript,) = build([TASK], USERS, ORDERS, {}, "# Policy\n\nBe kind.")
    return transcript


def _replace(messages, old: str, new: str):
    return json.loads(json.dumps(messages).replace(old, new))


def test_a_transcript_is_laid_out_as_tau_bench_publishes_trajectories() -> None:
    transcript = _transcript()
    roles = [m["role"] for m in transcript.messages]
    assert roles[:3] == ["system", "user", "user"] and roles.count("tool") == 3
    call = next(m for m in transcript.messages if m.get("tool_calls"))
    assert json.loads(call["tool_calls"][0]["function"]["arguments"])["first_name"] == "Noah"
    assert json.loads(transcript.messages[-3]["content"]) == ORDERS["#W7678072"]
    assert "Garden Hose" in transcript.protected and "brown" in transcript.protected and "Noah" in transcript.personal


def test_untouched_output_leaks_everything_and_keeps_every_word() -> None:
    transcript = _transcript()
    result = score([transcript], [copy.deepcopy(transcript.messages)])
    assert set(result.leaked) == {"name", "e-mail", "user id", "street line"} and result.streets_replaced == 0
    assert result.kept == 1.0 and result.protected_kept == result.protected > 0 and result.structure_broken == 0


def test_each_kind_of_damage_is_counted() -> None:
    transcript = _transcript()
    scrubbed = transcript.messages
    for old, new in (("Noah", "Liam"), ("Brown", "Hill"), ("noah.brown7922", "liam.hill1"), ("noah_brown_6181", "liam_hill_6181"),
                     ("986 Sunset Drive", "12 Oak Road")):
        scrubbed = _replace(scrubbed, old, new)
    clean = score([transcript], [scrubbed])
    assert not clean.leaked and clean.streets_replaced == 1 and clean.user_ids_same_shape == 1 and clean.kept == 1.0
    damaged = score([transcript], [_replace(_replace(scrubbed, "Garden Hose", "Garden Colleen"), "Be kind", "Be Susan")])
    assert damaged.protected_kept == damaged.protected - 2 and damaged.words_kept == damaged.words - 3  # both mentions, and "kind."
    zipped = score([transcript], [_replace(scrubbed, '\\"zip\\": \\"80279\\"', '\\"zip\\": \\"Denver\\"')])  # inside JSON strings
    assert zipped.zips_changed == 3 and zipped.zips_misshapen == 3  # the look-up's argument, the user's and the order's address
    assert clean.cards == 1 and clean.cards_replaced == 0 and clean.card_stand_ins == {"9212": {"9212"}}
    carded = score([transcript], [_replace(scrubbed, '\\"last_four\\": \\"9212\\"', '\\"last_four\\": \\"4410\\"')])
    assert carded.cards_replaced == 1 and carded.card_stand_ins == {"9212": {"4410"}} and carded.kept == 1.0
    renamed = score([transcript], [_replace(scrubbed, '\\"price\\"', '\\"moreno\\"')])
    assert renamed.structure_broken == 1


@pytest.mark.skipif(not (DEFAULT_FOLDER / "tasks_test.json").is_file(), reason="tau-bench retail data is not in ../shared")
def test_tau_bench_transcripts_through_scrub_meet_the_goals(scrubber) -> None:
    transcripts = load()
    (scrubbed,), _ = scrubber.scrub_json([[t.messages for t in transcripts]])
    result = score(transcripts, scrubbed)
    assert result.transcripts == 115 and result.structure_broken == 0
    assert not result.leaked
    assert result.user_ids_same_shape == result.user_ids > 100 and result.streets_replaced == result.streets
    assert result.protected_kept / result.protected >= 0.999 and result.kept >= 0.98
    assert result.goods_kept == result.goods > 2000  # 'a Wireless Earbud' of 'Wireless Earbuds' was a person (1 of 2,373)
    assert result.zips_misshapen == 0
    assert result.cards_replaced == result.cards > 30 and not [c for c, stand_ins in result.card_stand_ins.items() if len(stand_ins) > 1]
    assert result.localities_left == 0 and not [z for z, stand_ins in result.zip_stand_ins.items() if len(stand_ins) > 1]
    # each town's and zip's stand-in is drawn by its own digest alone, never by looking at the batch's other towns
    # (so the incident path and the nightly run agree): towns rarely share one (3 of 14 before the state's hundreds
    # of towns were the pool; 1 of 20 now), zips of one town may, where the stand-in town has few zips (18)
    assert len([town for town, real in result.town_stand_ins.items() if len(real) > 1]) <= 1
    assert result.shared_zips <= 0.25 * len(result.zip_stand_ins)
    assert result.zips_of_towns == result.addresses > 400  # a stand-in zip is one of its stand-in town's (0 of 439 before)


def test_towns_sharing_a_stand_in_and_zips_of_another_town_are_counted() -> None:
    transcript = _transcript()
    moved = _replace(_replace(_replace(transcript.messages, "Denver", "Lompoc"), "80279", "93436"), '\\"CO\\"', '\\"CA\\"')
    result = score([transcript], [moved])
    assert result.addresses == result.zips_of_towns == 2 and result.town_stand_ins == {("Lompoc", "CA"): {("Denver", "CO")}}
    assert score([transcript], [_replace(moved, "93436", "90001")]).zips_of_towns == 0  # a Los Angeles zip
    assert score([transcript, transcript], [moved, moved]).town_stand_ins == {("Lompoc", "CA"): {("Denver", "CO")}}
    other = copy.deepcopy(transcript)
    other.messages = _replace(other.messages, "Denver", "Boulder")
    shared = score([transcript, other], [moved, moved]).town_stand_ins
    assert shared == {("Lompoc", "CA"): {("Denver", "CO"), ("Boulder", "CO")}}


def test_a_surviving_zip_or_town_and_a_zip_with_two_stand_ins_are_counted() -> None:
    transcript = _transcript()
    assert score([transcript], [copy.deepcopy(transcript.messages)]).localities_left == 1
    moved = _replace(_replace(transcript.messages, "Denver", "Lompoc"), "80279", "93436")
    result = score([transcript], [moved])
    assert result.localities_left == 0 and result.zip_stand_ins == {"80279": {"93436"}}
    split = _replace(moved, 'in 93436', 'in 93437')  # the instruction's zip differs from the fields'
    assert score([transcript], [split]).zip_stand_ins == {"80279": {"93436", "93437"}}
    other = copy.deepcopy(transcript)
    other.zips = ["80280"]
    other.messages = _replace(other.messages, "80279", "80280")
    assert score([transcript, other], [moved, moved]).shared_zips == 1 and score([transcript], [moved]).shared_zips == 0


def test_catalogue_product_names_are_counted_in_either_number() -> None:
    """A product name of the catalogue replaced anywhere ('a Wireless Earbud' of 'Wireless Earbuds', which a cold
    reviewer found replaced as a person) is counted, in the number the catalogue writes and in the other."""
    task = {**TASK, "instruction": "You are Noah Brown in 80279. Return both Garden Hoses of order #W7678072."}
    (transcript,) = build([task], USERS, ORDERS, {"6679515468": {"name": "Garden Hose"}}, "# Policy\n\nBe kind.")
    kept = score([transcript], [copy.deepcopy(transcript.messages)])
    assert kept.goods == kept.goods_kept > 2
    plural = score([transcript], [_replace(transcript.messages, "Garden Hoses", "Gardner Hayes")])
    assert plural.goods_kept == kept.goods - 1
    singular = score([transcript], [_replace(transcript.messages, "Garden Hose", "Gardner Hayes")])
    assert singular.goods_kept == 0
