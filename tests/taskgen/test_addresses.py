"""Addresses in the customer's words, on sentences nobody here wrote, and order ids never read as house numbers."""

import pytest

from taskgen.domains.retail import reference
from taskgen.domains.retail.addresses import address_in
from taskgen.domains.retail.environment import RetailEnvironment
from taskgen.domains.retail.rules import Decision, decide
from taskgen.domains.retail.schema import RetailSchema
from taskgen.seeds import freeze_seed
from taskgen.task import AgentView

from retail_fixtures import CLOCK, make_state

ME = {"customer_id": "cus_1001"}

# tau-bench's retail test instructions (tasks_test.json 22, 41, 59) and tau2-bench's user scenarios (tasks.json 22),
# as they are written there (../shared/data); the gold is the address their own tool call writes.
TAU_SENTENCES = [
    ("You are Ethan Garcia, and you live in Denver, 80280. You want to change your user address and all possible order "
     "addresses to be 101 Highway, New York, 10001. Then you regret and want to change the user address back to the "
     "original address.", "101 Highway, New York, 10001"),
    ("Your name is Mei Patel, and you live in 445 Maple Drive, Suite 394, Fort Worth, Texas, 76165. You just created your "
     "user id mei_patel_7272 and ordered some things", "445 Maple Drive, Suite 394, Fort Worth, Texas, 76165"),
    ("For order #W2702727, you intend to switch the shipping address to your new home in a different city because you plan "
     "to move prior to its delivery next month. Your new address is 1234 Elm St, Springfield, IL, 62701. You want the agent "
     "to confirm the change.", "1234 Elm St, Springfield, IL, 62701"),
    ("You want to change your user address and all possible order addresses to be 101 Highway, New York, 10001 (including "
     "the orders). Once the agent has done so, you regret it.", "101 Highway, New York, 10001"),
]


@pytest.mark.parametrize(("sentence", "address"), TAU_SENTENCES, ids=["tau-22", "tau-41", "tau-59", "tau2-22"])
def test_the_whole_address_of_tau_bench_sentences(sentence, address):
    assert address_in(sentence) == address


@pytest.mark.parametrize(
    ("sentence", "address"),
    [
        ("to 742  Evergreen Terrace, Apt. 4, Springfield, OR 97403 please", "742 Evergreen Terrace, Apt. 4, Springfield, OR 97403"),
        ("ship to 123 Main St Apt 2 Springfield IL 62704 thanks", "123 Main St Apt 2 Springfield IL 62704"),  # no commas
        ("new one:\n12 elm street\nBoston, MA 02148-1234", "12 elm street Boston, MA 02148-1234"),  # lines, a lower-case street
        ("I moved to 5 Avenue of the Americas, Unit 7B, New York, NY 10001.", "5 Avenue of the Americas, Unit 7B, New York, NY 10001"),
    ],
)
def test_other_layouts(sentence, address):
    assert address_in(sentence) == address


@pytest.mark.parametrize(
    "sentence",
    [
        "no address here",
        "You are Lucas (lucas_santos_6600), you live in Denver CO 80239, and your daughter lives in Chicago.",  # no street
        "I bought 2 chairs and want them shipped to Springfield, IL 62701",  # a count is no house number
        "I live at 12 Elm St and my zip is 62701",  # words are no town
        "You are Fatima Johnson in 78712. You want to change #W8665881 to be delivered to Suite 641 instead.",  # a unit alone
    ],
)
def test_no_address(sentence):
    assert address_in(sentence) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "#W2378156 to 123 Elm St, Springfield, IL 62701",
        "order W2378156 to 123 Elm St, Springfield, IL 62701",
        "order W1234567, 123 Elm St, Springfield, IL 62701",
        "order #1001 Ship To 123 Elm St, Springfield, IL 62701",
        "order PO-123456 Deliver To 123 Elm St, Springfield, IL 62701",
        "order W12345 Ship To 123 Elm St, Springfield, IL 62701",
    ],
)
def test_an_id_glued_to_a_letter_or_a_sign_is_no_house_number(sentence):
    """Without being told any id."""
    assert address_in(sentence) == "123 Elm St, Springfield, IL 62701"
    assert address_in("order W1234567 Main Street, Springfield, IL 62701") is None


def test_an_id_the_caller_names_is_no_house_number_with_or_without_its_sign():
    written = "ORDER 1001 SHIP TO 55 OAK LANE, SPRINGFIELD, IL 62701"
    assert address_in(written) == written[6:]  # 1001 could be a house number
    assert address_in(written, ["#1001"]) == "55 OAK LANE, SPRINGFIELD, IL 62701"
    assert address_in("order #1001 Ship To 55 Oak Lane, Springfield, IL 62701", ["#1001"]) == "55 Oak Lane, Springfield, IL 62701"
    assert address_in("order 123456 Main Street, Springfield, IL 62701", ["123456"]) is None
    assert address_in("order 123456 Main Street, Springfield, IL 62701", ["1234567"]) == "123456 Main Street, Springfield, IL 62701"


SHOP = RetailSchema(order_id_patterns=[r"#\d{4,6}"])
"""Another schema's order ids: '#1001', written 'order 1001' as often as not (a shop's order numbers)."""


def test_the_drafter_skips_the_ids_of_the_configured_patterns(domain):
    prompt = "Order 1001 Ship To 55 Oak Lane, Springfield, IL 62701"
    moved = Decision(action="update_address", rule="address_change_allowed", customer_id="cus_1001", address="55 Oak Lane, Springfield, IL 62701")
    assert decide("address_change", prompt, make_state(), ME, CLOCK, domain.policy, schema=SHOP) == moved
    # the demo's pattern (#W and seven digits) says nothing of 1001: a house number then
    assert decide("address_change", prompt, make_state(), ME, CLOCK, domain.policy).address == prompt[6:]
    # and the demo's ids, written with or without their '#'
    for said in ("#W1000002 to 123 Elm St, Springfield, IL 62701", "order W1000002 Deliver To 123 Elm St, Springfield, IL 62701"):
        assert decide("address_change", said, make_state(), ME, CLOCK, domain.policy).address == "123 Elm St, Springfield, IL 62701"


def _shop_state():
    """The fixture's state with the shop's ids: cus_1001's pending order is '#1002'."""
    state = make_state()
    order = state["order"].pop("#W1000002")
    state["order"]["#1002"] = {**order, "id": "#1002"}
    for kind in ("order_item", "payment"):
        for row in state.get(kind, {}).values():
            if row.get("order_id") == "#W1000002":
                row["order_id"] = "#1002"
    return state


def test_the_reference_agent_reads_the_address_as_the_drafter_does(domain):
    """The reference knows no pattern: the id it looked up in the backend is an order, not a house number."""
    prompt = "Order 1002 Ship To 55 Oak Lane, Springfield, IL 62701"
    state = _shop_state()
    seed = freeze_seed(state, CLOCK, domain_schema=SHOP.document())
    env = RetailEnvironment(seed)
    reference.reference_agent(domain.policy)(AgentView(prompt=prompt, intent="address_change", actor=ME, clock=seed.clock), env)
    drafted = decide("address_change", prompt, state, ME, CLOCK, domain.policy, "#1002", schema=SHOP)
    assert env.state["customer"]["cus_1001"]["address"] == drafted.address == "55 Oak Lane, Springfield, IL 62701"


def test_an_address_the_customer_already_has_is_told_by_its_town(domain):
    """tau2-bench's 'change it to my Tooele UT address (it is in my other order)': the one address among the
    customer's own (account, other orders) whose town the words name; the drafter and the reference find the same."""
    from taskgen.domains.retail.addresses import address_named, town_of

    assert town_of("100 Sycamore Terrace, Suite 466, Cottondale, FL 32431") == "Cottondale"
    assert town_of("9 Cedar Row, Fort Worth, Texas 76165") == "Fort Worth" and town_of("Cottondale") is None
    fresno, dayton = "4410 Hargrove Ave, Fresno, CA 93722", "18 Linden Court, Dayton, OH 45402"
    assert address_named("to my Fresno CA address", [fresno, dayton]) == fresno
    assert address_named("to my fresno address please", [fresno, dayton]) == fresno  # as the customer writes it
    assert address_named("to my new address", [fresno, dayton]) is None
    assert address_named("from Dayton to Fresno", [fresno, dayton]) is None  # two towns named: no guess
    state = make_state()
    state["order"]["#W1000001"]["shipping_address"] = fresno  # sent to Fresno once
    prompt = "Please change my default address to the Fresno one."
    drafted = decide("address_change", prompt, state, ME, CLOCK, domain.policy)
    assert (drafted.action, drafted.address) == ("update_address", fresno)
    env = RetailEnvironment(freeze_seed(state, CLOCK))
    reference.reference_agent(domain.policy)(AgentView(prompt=prompt, intent="address_change", actor=ME, clock=CLOCK.isoformat()), env)
    assert env.state["customer"]["cus_1001"]["address"] == fresno
    # the account's own address is the one being changed: its town names no other address
    assert decide("address_change", "Please change my default address, I moved away from Dayton.", make_state(), ME, CLOCK,
                  domain.policy).address is None


def test_words_writing_a_street_line_of_their_own_name_no_address_the_customer_had():
    """A new address short of its zip code ('to 12 Pine Road, Fresno') is the customer's own, not the old one in Fresno."""
    from taskgen.domains.retail.addresses import address_named

    assert address_named("please update my address to 12 Pine Road, Fresno", ["4410 Hargrove Ave, Fresno, CA 93722"]) is None


def test_an_address_told_by_its_town_needs_words_telling_whose_address_changes(domain):
    """tau2 tasks 101/102 ('I just placed an order with two watches, I want to change its address to my New York
    address'): the words tell neither the account's address nor an order by id, so the drafter does not pin the account's
    address (the customer meant the order's): the agent asks for it or finds it (address_to_ask), as before."""
    state = make_state()
    state["order"]["#W1000001"]["shipping_address"] = "4410 Hargrove Ave, Fresno, CA 93722"
    decision = decide("address_change", "I want to change its address to my Fresno address.", state, ME, CLOCK, domain.policy)
    assert (decision.rule, decision.address) == ("address_to_ask", None)
