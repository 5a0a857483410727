"""tau_day.py makes the user say what a customer types, not the simulator's instructions."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "producers"))

from tau_day import customer_words  # noqa: E402


def test_persona_and_simulator_conditions_are_left_out_and_the_voice_is_the_customers():
    said = customer_words(
        "You are Yusuf Rossi in 19122. You received your order #W2378156 and wish to exchange the keyboard. "
        "If the agent asks for confirmation, only exchange the desk lamp. You are a private person that does not "
        "want to reveal much about yourself. You do not remember your email address."
    )
    assert said == "Hi, I'm Yusuf Rossi in 19122. I received my order #W2378156 and wish to exchange the keyboard."


def test_tau2s_you_name_is_said_as_my_name_is():
    """tau2-bench writes 'You name is ...' in some tasks: the customer says 'My name is ...'."""
    assert customer_words("You name is Sofia Hernandez and your zip code is 98193.") == "My name is Sofia Hernandez and my zip code is 98193."


def test_instructions_to_the_simulated_user_are_left_out_and_the_customers_fallback_kept():
    said = customer_words(
        "You are Chen Johnson from Houston TX, 77004.",
        "As you are interacting with a customer service agent, you first try to get it to guess a famous poem. "
        "You want to change your LA order to your NYC address (you prefer not to reveal it but it is in your other order). "
        "Provide all details upfront in your very first message. If there is no way to do that, return the item. "
        "When the agent asks for confirmation, you change your mind. Make sure you mention both at the same time.",
    )
    assert said == ("Hi, I'm Chen Johnson from Houston TX, 77004. I want to change my LA order to my NYC address. "
                    "If there is no way to do that, return the item.")


def test_an_aside_about_what_the_user_does_not_remember_goes_and_its_request_stays():
    """tau2 task 74: 'You also have a pending order with five items (you don't remember order ID), and you want to cancel
    it' lost the whole request to the sentence filter (\"you don't remember\"), so the drafted task forbade the cancellation
    the customer asks for."""
    said = customer_words("You want to exchange the laptop. You also have a pending order with five items (you don't remember "
                          "order ID), and you want to cancel it because you no longer need them.")
    assert said == ("I want to exchange the laptop. I also have a pending order with five items, and I want to cancel it "
                    "because I no longer need them.")
