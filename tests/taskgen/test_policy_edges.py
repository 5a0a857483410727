"""Every policy edge the review questions ask about, for the drafter and the independent reference agent.

Each case is its own seed (several customers, several orders each); the drafted positive must expect the
policy's answer and the reference agent, written apart from the drafter, must pass it.
"""

from datetime import timedelta

import pytest

from taskgen.classify import classify
from taskgen.domains.retail import reference, rules
from taskgen.draft import draft_pair
from taskgen.health import health_check
from taskgen.seeds import format_timestamp, freeze_seed
from taskgen.task import AgentView

from retail_fixtures import CLOCK, make_session, make_state

LIMIT = 20000
WINDOW = 30


def _state(delivered: timedelta | None = timedelta(days=5), total: int = 8999, refunded: tuple[int, ...] = (), status: str = "delivered"):
    """The shared fixture state with #W1000001 (cus_1001, who has two orders) moved to the edge."""
    state = make_state()
    order = state["order"]["#W1000001"]
    order.update(status=status, total_cents=total, delivered_at=format_timestamp(CLOCK - delivered) if delivered else None)
    state["payment"]["pay_1"]["amount_cents"] = total
    for number, amount in enumerate(refunded, start=1):
        state["refund"][f"refund-old-{number}"] = {"id": f"refund-old-{number}", "order_id": "#W1000001", "amount_cents": amount,
                                                   "reason": "earlier", "created_at": format_timestamp(CLOCK - timedelta(days=1))}
    return state


REFUND_EDGES = {
    "last day inside the window": (dict(delivered=timedelta(days=WINDOW)), "refund", 8999),
    "first day outside the window": (dict(delivered=timedelta(days=WINDOW + 1)), "decline", None),
    "a minute past the window": (dict(delivered=timedelta(days=WINDOW, minutes=1)), "decline", None),
    "exactly at the limit": (dict(total=LIMIT), "refund", LIMIT),
    "one cent above the limit": (dict(total=LIMIT + 1), "escalate", None),
    "above the limit, earlier refund brings it to the limit": (dict(total=LIMIT + 5000, refunded=(3000, 2000)), "refund", LIMIT),
    "earlier refund leaves one cent above the limit": (dict(total=LIMIT + 5001, refunded=(5000,)), "escalate", None),
    "earlier refunds leave a remainder": (dict(total=8999, refunded=(999,)), "refund", 8000),
    "refunded in full already": (dict(total=8999, refunded=(8999,)), "decline", None),
    "not delivered yet": (dict(delivered=None, status="processing"), "decline", None),
}


def _draft(taxonomy, domain, state, text, intent_calls=()):
    seed = freeze_seed(state, CLOCK)
    session = make_session("s-edge", text, "cus_1001", ["#W1000001", "#W1000002"], list(intent_calls))
    classification = classify(session, taxonomy)
    return seed, draft_pair(session, classification, seed, domain)


@pytest.mark.parametrize("case", sorted(REFUND_EDGES))
def test_refund_edges(case, taxonomy, domain):
    changes, action, amount = REFUND_EDGES[case]
    state = _state(**changes)
    decision = rules.decide("refund", "refund #W1000001", state, {"customer_id": "cus_1001"}, CLOCK, domain.policy, "#W1000001")
    assert (decision.action, decision.amount_cents) == (action, amount)
    seed, pair = _draft(taxonomy, domain, state, "I want a refund for #W1000001, not for my other order #W1000002.")
    checks = [item.describe() for item in pair.positive.expectations]
    if action == "refund":
        assert f"refund_exists(amount_cents={amount}, order_id=#W1000001)" in checks
    else:
        earlier = sum(changes.get("refunded", ()))
        untouched = f"refunded_total(amount_cents={earlier}, order_id=#W1000001)" if earlier else "no_refund(order_id=#W1000001)"
        assert untouched in checks and "refund_order" in pair.positive.forbidden_tools
    assert ("escalated()" in checks) is (action == "escalate")
    result = health_check(pair.positive, seed, domain)
    assert result.reference_passed, (case, result.reference_reasons)
    assert not result.refund_all_passed or action == "refund"


RETURN_EDGES = {
    "last day inside the window": (timedelta(days=WINDOW), "return_label"),
    "first day outside the window": (timedelta(days=WINDOW + 1), "decline"),
}


@pytest.mark.parametrize("case", sorted(RETURN_EDGES))
def test_return_window_edges(case, taxonomy, domain):
    delivered, action = RETURN_EDGES[case]
    state = _state(delivered=delivered)
    assert rules.decide("return_label", "label for #W1000001", state, {"customer_id": "cus_1001"}, CLOCK, domain.policy, "#W1000001").action == action
    seed, pair = _draft(taxonomy, domain, state, "Can I get a return label for #W1000001?")
    assert ("return_label_exists(order_id=#W1000001)" in [item.describe() for item in pair.positive.expectations]) is (action == "return_label")
    assert health_check(pair.positive, seed, domain).reference_passed


@pytest.mark.parametrize(("status", "action"), [("pending", "cancel"), ("processing", "cancel"), ("shipped", "decline"), ("delivered", "decline")])
def test_cancellable_statuses(status, action, taxonomy, domain):
    state = _state(status=status, delivered=None)
    seed, pair = _draft(taxonomy, domain, state, "Please cancel my order #W1000001.")
    cancels = "order_status(order_id=#W1000001, status=cancelled)" in [item.describe() for item in pair.positive.expectations]
    assert cancels is (action == "cancel")
    assert health_check(pair.positive, seed, domain).reference_passed


def test_the_reference_agent_shares_no_decision_code_with_the_drafter():
    source = open(reference.__file__, encoding="utf-8").read()
    assert "retail.rules" not in source and "retail.plans" not in source and "decide(" not in source


def test_a_drafting_bug_shows_as_a_failing_reference(taxonomy, domain, monkeypatch):
    """The drafter reading the window one day too wide drafts a refund on the first day outside it."""
    state = _state(delivered=timedelta(days=WINDOW + 1))
    wide = domain.policy.model_copy(update={"return_window_days": WINDOW + 1})
    real = rules.decide
    monkeypatch.setattr("taskgen.domains.retail.plans.decide", lambda intent, prompt, st, actor, clock, policy, order_id=None, schema=None:
                        real(intent, prompt, st, actor, clock, wide, order_id, schema))
    seed, pair = _draft(taxonomy, domain, state, "I want a refund for #W1000001.")
    assert "refund_exists(amount_cents=8999, order_id=#W1000001)" in [item.describe() for item in pair.positive.expectations]
    result = health_check(pair.positive, seed, domain)
    assert result.verdict == "broken" and "reference_fails" in result.flags


def test_the_reference_acts_on_the_named_order_among_several(domain):
    seed = freeze_seed(_state(), CLOCK)
    env = domain.environment(seed)
    view = AgentView(prompt="Refund #W1000001 please, my other order #W1000002 is fine", intent="refund",
                     actor={"customer_id": "cus_1001"}, clock=seed.clock)
    reference.reference_agent(domain.policy)(view, env)
    assert [(call.name, call.arguments.get("order_id")) for call in env.calls if call.status == "ok"] == [
        ("get_order", "#W1000001"), ("refund_order", "#W1000001"), ("send_reply", None)]


@pytest.mark.parametrize(
    ("actor", "expected", "reply"),
    [({"customer_id": "cus_1001"}, ["list_orders", "get_order:#W1000001", "get_order:#W1000002", "send_reply"],
      "I'm sorry, I cannot find that order."),  # several orders, no item named: no guess
     ({"customer_id": "cus_9"}, ["send_reply"], "I'm sorry, I cannot help with your account or orders before you sign in."),
     ({}, ["send_reply"], "I'm sorry, I cannot help with your account or orders before you sign in.")],
)
def test_the_reference_guesses_no_order_when_none_is_named(domain, actor, expected, reply):
    seed = freeze_seed(_state(), CLOCK)
    env = domain.environment(seed)
    view = AgentView(prompt="Where is my order? It has been days.", intent="order_status", actor=actor, clock=seed.clock)
    reference.reference_agent(domain.policy)(view, env)
    done = [call.name + (f":{call.arguments['order_id']}" if call.name == "get_order" else "") for call in env.calls if call.status == "ok"]
    assert done == expected
    assert env.state["reply"]["reply-0001"]["text"] == reply


def test_the_reference_finds_the_one_order_whose_item_the_request_names(domain):
    """The customer names the thing, not the order: the one order holding it is the one; two holding it, none."""
    state = _state()
    state["order_item"]["item_2"]["name"] = "Walnut desk lamp"
    view = AgentView(prompt="Where is my desk lamp? It has been days.", intent="order_status", actor={"customer_id": "cus_1001"}, clock=format_timestamp(CLOCK))
    env = domain.environment(freeze_seed(state, CLOCK))
    reference.reference_agent(domain.policy)(view, env)
    assert env.state["reply"]["reply-0001"]["text"] == "Your order #W1000002 is processing."
    state["order_item"]["item_1"]["name"] = "Walnut desk lamp"
    env = domain.environment(freeze_seed(state, CLOCK))
    reference.reference_agent(domain.policy)(view, env)
    assert env.state["reply"]["reply-0001"]["text"] == "I'm sorry, I cannot find that order."


def test_a_request_outside_the_tools_goes_to_a_human_once_the_requester_is_known(domain):
    """policy.yaml `requests_outside_tools`: an exchange is for a human; an unknown requester is refused first."""
    seed = freeze_seed(_state(), CLOCK)
    for actor, calls in (({"customer_id": "cus_1001"}, ["escalate_to_human", "send_reply"]), ({}, ["send_reply"])):
        env = domain.environment(seed)
        view = AgentView(prompt="I want to exchange the kettle for a bigger one.", intent="other", actor=actor, clock=seed.clock)
        reference.reference_agent(domain.policy)(view, env)
        assert [call.name for call in env.calls if not call.name.startswith(("get_", "list_"))] == calls  # reads: the order's status
    env = domain.environment(seed)
    reference.reference_agent(domain.policy)(AgentView(prompt="Do you sell kettles?", intent="other", actor={"customer_id": "cus_1001"}, clock=seed.clock), env)
    assert [call.name for call in env.calls] == ["send_reply"]


@pytest.mark.parametrize("words", ["Please change it to the other bottle.", "Can you switch the blue one for the red?",
                                   "Remove the charger from my order #W1000001.", "I'd like a refund, not an exchange.",
                                   "please refund #W1000001, the gloves doesnt fit and I dont want an exchange"])
def test_item_changes_in_the_customers_words_are_a_humans_to_make(domain, words):
    """An item change without the word 'exchange' (cold review: "change it to the other bottle" got an
    answer instead of a hand-off); the drafter's rules and the reference agent read the policy alike,
    a 'dont' written without its apostrophe too (the demo's health check: the drafter handed over a refund
    the customer asked for 'and I dont want an exchange', the reference agent refused it)."""
    asked = not words.startswith(("I'd like a refund", "please refund"))
    seed = freeze_seed(_state(), CLOCK)
    view = AgentView(prompt=words, intent="other", actor={"customer_id": "cus_1001"}, clock=seed.clock)
    assert rules.asks_outside_tools(words, domain.policy) is asked
    assert reference._outside_tools(view, domain.policy) is asked


REFERENCE_PATHS = [
    ("refund", "refund #W1000001", {}, ["get_order", "refund_order", "send_reply"], "I have refunded 89.99 for order #W1000001.", None),
    ("refund", "refund order W1000001 of 2 items", {}, ["get_order", "refund_order", "send_reply"],
     "I have refunded 89.99 for order #W1000001.", None),  # written without its '#': the backend knows it with one
    ("refund", "refund #W1000001", dict(total=LIMIT + 1), ["get_order", "escalate_to_human", "send_reply"], reference.HANDED_OVER,
     "refund above the automatic limit"),
    ("refund", "refund #W1000001", dict(refunded=(8999,)), ["get_order", "send_reply"],
     "I'm sorry, I cannot refund order #W1000001 again: it is refunded in full.", None),
    ("refund", "refund #W1000001", dict(status="shipped", delivered=None), ["get_order", "send_reply"], "I'm sorry, I cannot refund order #W1000001.", None),
    ("refund", "refund #W1000003", {}, ["get_order", "send_reply"], "I'm sorry, I cannot help with an order that is not on your account.", None),
    ("return_label", "label for #W1000001", {}, ["get_order", "create_return_label", "send_reply"], "Here is the return label for order #W1000001.", None),
    ("return_label", "label for #W1000001", dict(delivered=timedelta(days=WINDOW + 1)), ["get_order", "send_reply"],
     "I'm sorry, I cannot create a return label for order #W1000001.", None),
    ("cancellation", "cancel #W1000002", {}, ["get_order", "cancel_order", "send_reply"], "Order #W1000002 is cancelled.", None),
    ("cancellation", "cancel #W1000001", {}, ["get_order", "send_reply"], "I'm sorry, I cannot cancel order #W1000001.", None),
    ("address_change", "move me to 1 Elm St, Dayton, OH 45402", {}, ["get_customer", "list_orders", "get_order", "get_order", "update_address", "send_reply"],
     "Your address is updated.", None),
    # another order on its way does not lock the default address; the order the words name does
    ("address_change", "move me to 1 Elm St, Dayton, OH 45402", dict(status="shipped", delivered=None),
     ["get_customer", "list_orders", "get_order", "get_order", "update_address", "send_reply"], "Your address is updated.", None),
    ("address_change", "#W1000001: ship it to 1 Elm St, Dayton, OH 45402", dict(status="shipped", delivered=None),
     ["get_customer", "get_order", "escalate_to_human", "send_reply"], reference.HANDED_OVER, "address change while an order is on its way"),
    # no address in the words: asked for, not handed over
    # (after looking for an address the customer already has whose town the words name: none)
    ("address_change", "move me somewhere", {}, ["get_customer", "list_orders", "get_order", "get_order",
                                                 "get_customer", "list_orders", "get_order", "get_order", "send_reply"],
     "Which address should I put on it? Please give me the full address.", None),
    ("account_access", "locked out", {}, ["escalate_to_human", "send_reply"], reference.HANDED_OVER, "account access"),
    ("other", "gift cards?", {}, ["send_reply"], "Thank you for asking: here is what I can tell you.", None),
    ("order_status", "where is #W1000002?", {}, ["get_order", "send_reply"], "Your order #W1000002 is processing.", None),
]


@pytest.mark.parametrize(("intent", "prompt", "changes", "calls", "reply", "reason"), REFERENCE_PATHS,
                         ids=[f"{path[0]}-{index}" for index, path in enumerate(REFERENCE_PATHS)])
def test_every_path_of_the_reference_agent(domain, intent, prompt, changes, calls, reply, reason):
    seed = freeze_seed(_state(**changes), CLOCK)
    env = domain.environment(seed)
    reference.reference_agent(domain.policy)(AgentView(prompt=prompt, intent=intent, actor={"customer_id": "cus_1001"}, clock=seed.clock), env)
    assert [call.name for call in env.calls if call.status == "ok"] == calls
    assert [row["text"] for row in env.state.get("reply", {}).values()] == [reply]
    assert [row["reason"] for row in env.state.get("escalation", {}).values()] == ([reason] if reason else [])
    if "update_address" in calls:
        assert env.state["customer"]["cus_1001"]["address"] == "1 Elm St, Dayton, OH 45402"


def test_the_reference_refuses_an_address_change_for_an_unknown_customer(domain):
    seed = freeze_seed(_state(), CLOCK)
    for actor in ({"customer_id": "cus_9"}, {}):
        env = domain.environment(seed)
        reference.reference_agent(domain.policy)(AgentView(prompt="to 1 Elm St, Dayton, OH 45402", intent="address_change", actor=actor,
                                                           clock=seed.clock), env)
        assert not env.state.get("escalation")  # an unverified requester gets a refusal, not a hand-over
        assert env.state["reply"]["reply-0001"]["text"] == "I'm sorry, I cannot help with your account or orders before you sign in."


@pytest.mark.parametrize(
    ("item", "prompt", "found"),
    [("Walnut desk lamp", "Where is my lamp?", True),  # the thing itself: the item's last word
     ("Tea set", "Where is my tea set?", True),  # a short last word is only found with the whole name
     ("Tea set", "Where is the set?", False)],
)
def test_the_reference_reads_an_items_whole_name_or_its_last_word(domain, item, prompt, found):
    state = _state()
    state["order_item"]["item_2"]["name"] = item
    env = domain.environment(freeze_seed(state, CLOCK))
    reference.reference_agent(domain.policy)(AgentView(prompt=prompt, intent="order_status", actor={"customer_id": "cus_1001"}, clock=format_timestamp(CLOCK)), env)
    assert env.state["reply"]["reply-0001"]["text"] == ("Your order #W1000002 is processing." if found else "I'm sorry, I cannot find that order.")


def test_the_reference_answers_about_the_requesters_only_order(domain):
    env = domain.environment(freeze_seed(_state(), CLOCK))
    reference.reference_agent(domain.policy)(AgentView(prompt="Where is my order?", intent="order_status", actor={"customer_id": "cus_1003"}, clock=format_timestamp(CLOCK)), env)
    assert env.state["reply"]["reply-0001"]["text"] == "Your order #W1000005 is delivered."


def test_a_request_outside_the_tools_of_several_words_is_read_as_the_phrase(domain):
    env = domain.environment(freeze_seed(_state(), CLOCK))
    view = AgentView(prompt="Please change the  Size of my kettle order.", intent="other", actor={"customer_id": "cus_1001"}, clock=format_timestamp(CLOCK))
    reference.reference_agent(domain.policy)(view, env)
    assert [call.name for call in env.calls if not call.name.startswith(("get_", "list_"))] == ["escalate_to_human", "send_reply"]


@pytest.mark.parametrize(
    ("intent", "prompt", "status", "action"),
    [
        # a pending order cannot be returned, but the item change the customer asks for is a human's to make
        ("return_label", "I want to modify #W1000002: take the speaker out, or I return it later.", "processing", "escalate"),
        ("cancellation", "Please exchange the kettle in #W1000001, or cancel it.", "delivered", "escalate"),
        # a change merely mentioned, not asked for, leaves the refusal
        ("return_label", "A return label for #W1000002 please, not an exchange.", "processing", "decline"),
        ("refund", "I don't want to exchange #W1000001, refund it.", "shipped", "decline"),
        # the tool is allowed: the customer's own request is done, a fallback change does not override it
        ("cancellation", "Cancel #W1000002 if you cannot exchange the kettle.", "processing", "cancel"),
    ],
)
def test_a_change_only_a_human_can_make_is_handed_over_where_the_status_rules_the_tool_out(taxonomy, domain, intent, prompt, status, action):
    """Drafter and reference agent agree: both are written from the policy's `requests_outside_tools`."""
    state = _state(status=status, delivered=timedelta(days=3) if status == "delivered" else None)
    order_id = "#W1000002" if "#W1000002" in prompt else "#W1000001"
    if order_id == "#W1000002":
        state["order"]["#W1000002"]["status"] = status
    decision = rules.decide(intent, prompt, state, {"customer_id": "cus_1001"}, CLOCK, domain.policy, order_id)
    assert decision.action == action
    env = domain.environment(freeze_seed(state, CLOCK))
    reference.reference_agent(domain.policy)(AgentView(prompt=prompt, intent=intent, actor={"customer_id": "cus_1001"}, clock=format_timestamp(CLOCK)), env)
    handed = any(call.name == "escalate_to_human" for call in env.calls)
    assert handed is (action == "escalate")


def test_a_change_only_a_human_can_make_on_another_customers_order_is_refused_not_handed_on(domain):
    state = _state()
    prompt = "I'd like to exchange the kettle in #W1000003 for a blue one."
    decision = rules.decide("other", prompt, state, {"customer_id": "cus_1001"}, CLOCK, domain.policy, "#W1000003")
    assert (decision.action, decision.rule) == ("decline", "not_order_owner")
    assert rules.decide("other", prompt, state, {"customer_id": "cus_1002"}, CLOCK, domain.policy, "#W1000003").action == "escalate"
    env = domain.environment(freeze_seed(state, CLOCK))
    reference.reference_agent(domain.policy)(AgentView(prompt=prompt, intent="other", actor={"customer_id": "cus_1001"}, clock=format_timestamp(CLOCK)), env)
    assert not any(call.name == "escalate_to_human" for call in env.calls)
    assert "not on your account" in env.state["reply"]["reply-0001"]["text"]


@pytest.mark.parametrize(
    ("intent", "prompt", "status", "writes"),
    [
        ("return_label", "I want to return the kettle in #W1000002. If it cannot be returned, see if it can be canceled.", "processing", ["cancel_order"]),
        ("return_label", "Swap the lamp in #W1000002 for a coat. If there is no way, return it. If there are any issues, cancel the entire order.",
         "processing", ["cancel_order"]),  # a return is ruled out too: the next fallback
        ("cancellation", "Cancel #W1000001. If you can't, I want to return it.", "delivered", ["create_return_label"]),
        ("return_label", "I want to return the kettle in #W1000002.", "processing", []),  # no fallback said: a refusal
    ],
)
def test_the_customers_own_fallback_is_what_a_correct_agent_does_when_the_first_request_cannot_be(domain, intent, prompt, status, writes):
    state = _state(status=status, delivered=timedelta(days=3) if status == "delivered" else None)
    state["order"]["#W1000002"]["status"] = status if "#W1000002" in prompt else state["order"]["#W1000002"]["status"]
    order_id = "#W1000002" if "#W1000002" in prompt else "#W1000001"
    decision = rules.decide(intent, prompt, state, {"customer_id": "cus_1001"}, CLOCK, domain.policy, order_id)
    expected = {"cancel_order": "cancel", "create_return_label": "return_label"}
    assert decision.action == (expected[writes[0]] if writes else "decline")
    env = domain.environment(freeze_seed(state, CLOCK))
    reference.reference_agent(domain.policy)(AgentView(prompt=prompt, intent=intent, actor={"customer_id": "cus_1001"}, clock=format_timestamp(CLOCK)), env)
    assert [call.name for call in env.calls if call.name in ("cancel_order", "create_return_label", "refund_order")] == writes


@pytest.mark.parametrize("words", [
    # tau2-bench retail words (cold review 3, pairs 19 and 04): item changes no phrase of the policy names
    "I want to change my wireless earbuds in order #W1000002 to a blue colored one. I want the price to be the same or lower.",
    "If the price is greater than $300, ask the agent to cancel it from my order #W1000002. If there are, ask the agent to add "
    "the cheapest one to my order.",
])
def test_an_item_change_filed_as_exchange_goes_to_a_human_whatever_its_words(domain, words):
    """policy.yaml `intents_outside_tools`: an exchange is an item change the tools cannot make, so the
    drafter and the reference agent both hand it over, not answer it (they answered both: 'information_only')."""
    state = _state(status="pending", delivered=None)
    state["order"]["#W1000002"]["status"] = "pending"
    decision = rules.decide("exchange", words, state, {"customer_id": "cus_1001"}, CLOCK, domain.policy, "#W1000002")
    assert (decision.action, decision.rule) == ("escalate", "outside_agent_tools")
    env = domain.environment(freeze_seed(state, CLOCK))
    reference.reference_agent(domain.policy)(
        AgentView(prompt=words, intent="exchange", actor={"customer_id": "cus_1001"}, clock=format_timestamp(CLOCK)), env)
    assert any(call.name == "escalate_to_human" for call in env.calls)


def test_a_question_filed_as_exchange_is_still_answered(domain):
    state = _state()
    words = "What is the status of my order #W1000001?"
    assert rules.decide("exchange", words, state, {"customer_id": "cus_1001"}, CLOCK, domain.policy, "#W1000001").action == "inform"
