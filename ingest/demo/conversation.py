"""One session's conversation: the customer's messages, the agent's tool calls and replies, as
its intent and outcome call for, built from the phrasings in `phrases.yaml` and the shop's
state (a tool call's effect is applied to the world at the moment the call is made)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from .phrases import PHRASES
from .plan import Plan
from .values import casual, day_words, days_ago_words, iban_number, iso, money, public_ipv4, public_ipv6, ssn
from .world import Customer, Order, World

RETURN_WINDOW_DAYS = 30
ESCALATION_QUEUE = {
    "order_status": "orders",
    "refund": "returns-refunds",
    "return_label": "returns-refunds",
    "cancellation": "orders",
    "address_change": "orders",
    "account_access": "account-security",
    "other": "general",
}


@dataclass
class ToolError:
    exception_type: str
    message: str
    service: str
    log_body: str


@dataclass
class ToolStep:
    name: str
    arguments: dict[str, Any]
    result: Any = None
    error: ToolError | None = None
    effect: Callable[[datetime], dict[str, Any]] | None = None
    """Applies the call to the shop at the call's time; what it returns is merged into the result."""


@dataclass
class Turn:
    user: str
    tools: list[ToolStep]
    reply: str
    interim: str | None = None


@dataclass
class Play:
    """One intent's conversation material for one customer and order."""

    opener: str
    lookup: list[ToolStep]
    action: list[ToolStep]
    reply: str
    bad_action: list[ToolStep]
    bad_reply: str
    complaint: str
    escalation_reason: str
    resolution: str
    resolution_effect: Callable[[datetime], None] | None = None
    details: str | None = None
    """A second user message the agent asked for (verification details, ...)."""


class Conversation:
    """Writes one session's conversation material for its customer, order, intent and outcome."""

    def __init__(self, rng: random.Random, world: World, plan: Plan, customer: Customer, order: Order) -> None:
        self.rng, self.world, self.plan, self.customer, self.order = rng, world, plan, customer, order
        self.pii = world.pii
        self.at = plan.at
        self.listed_orders: list[str] = []

    # -- text

    def say(self, template: str, personal: dict[str, str] | None = None, **slots: str) -> str:
        """Fills a casually typed template; `personal` (slot -> PII type) names the slots whose
        values are personal, which are recorded when the template uses them."""
        for key, kind in (personal or {}).items():
            if "{" + key + "}" in template:
                self.pii.add(slots[key], kind)
        return casual(template, self.rng).format(**slots)

    def sign_off(self) -> str:
        c = self.customer
        template = self.rng.choice(PHRASES.sign_offs)
        slots = {"first": c.first, "name": c.name, "lower_name": c.name.lower(), "lower_first": c.first.lower()}
        for key, kind in (("first", "FIRST_NAME"), ("name", "PERSON"), ("lower_name", "PERSON"),
                          ("lower_first", "FIRST_NAME")):
            if "{" + key + "}" in template:
                self.pii.add(slots[key], kind)
        return template.format(**slots)

    def contact(self) -> str:
        c, rng = self.customer, self.rng
        roll = rng.random()
        if roll < 0.2:
            phone = self.pii.add(rng.choice([c.phone, *c.phone_variants]), "PHONE_NUMBER")
            return rng.choice([f" You can call me on {phone}.", f" my number is {phone}", f" Call me: {phone}"])
        if roll < 0.32:
            return f" My email is {c.email}."
        return ""

    def card_mention(self) -> str:
        pan = self.order.card_number
        if not pan or self.rng.random() > 0.25:
            return ""
        groups = [pan[i : i + 4] for i in range(0, len(pan), 4)]
        written = self.pii.add(self.rng.choice([" ".join(groups), "-".join(groups), pan]), "CREDIT_CARD")
        return self.rng.choice([f" I paid with card {written}.", f" (card {written})", f" it was on my card {written}"])

    def iban_mention(self) -> str:
        if self.customer.country not in ("DE", "FR", "GB") or self.rng.random() > 0.35:
            return ""
        iban = iban_number(self.rng, self.customer.country)
        written = " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)) if self.rng.random() < 0.5 else iban
        self.pii.add(written, "IBAN_CODE")
        return f" If it's easier, send the money to my bank account, IBAN {written}."

    def ago(self, moment: datetime) -> str:
        return days_ago_words(max(0, (self.at - moment).days), self.rng)

    def order_slots(self) -> dict[str, str]:
        o = self.order
        return {"order": o.id, "item": o.items[0].name, "amount": money(o.total_cents),
                "ago": self.ago(o.delivered_at or o.created_at), "status": o.status}

    # -- tools

    def order_view(self) -> dict[str, Any]:
        o = self.order
        return {
            "id": o.id, "customer_id": o.customer_id, "status": o.status, "total_cents": o.total_cents,
            "created_at": iso(o.created_at), "delivered_at": iso(o.delivered_at) if o.delivered_at else None,
            "shipping_address": o.shipping_address,
            "items": [{"sku": i.sku, "name": i.name, "price_cents": i.price_cents, "quantity": i.quantity} for i in o.items],
            "payment": {"method": o.method, "card_last4": o.card_number[-4:] if o.card_number else None},
        }

    def customer_view(self) -> dict[str, Any]:
        c = self.customer
        return {"id": c.id, "name": c.name, "email": c.email, "phone": c.phone, "address": c.address,
                "created_at": iso(c.created_at), "orders_count": len(c.orders)}

    def get_order(self) -> ToolStep:
        return ToolStep("get_order", {"order_id": self.order.id}, self.order_view())

    def get_customer(self) -> ToolStep:
        return ToolStep("get_customer", {"customer_id": self.customer.id}, self.customer_view())

    def list_orders(self) -> ToolStep:
        self.listed_orders = [o.id for o in self.customer.orders]
        rows = [{"id": o.id, "status": o.status, "total_cents": o.total_cents, "created_at": iso(o.created_at)}
                for o in sorted(self.customer.orders, key=lambda o: o.created_at, reverse=True)]
        return ToolStep("list_orders", {"customer_id": self.customer.id}, {"orders": rows})

    def refund(self, reason: str) -> ToolStep:
        order, cents = self.order, self.order.total_cents

        def apply(at: datetime) -> dict[str, Any]:
            return {"refund_id": self.world.refund(order, cents, reason, at), "status": "succeeded"}

        return ToolStep("refund_order", {"order_id": order.id, "amount_cents": cents, "reason": reason},
                         {"amount_cents": cents}, effect=apply)

    def return_label(self) -> ToolStep:
        order, tracking = self.order, "1Z" + "".join(self.rng.choice("0123456789ABCDEF") for _ in range(16))

        def apply(at: datetime) -> dict[str, Any]:
            label_id = self.world.return_label(order, at)
            return {"label_id": label_id, "url": f"https://returns.acme-outfitters.com/labels/{label_id}.pdf"}

        return ToolStep("create_return_label", {"order_id": order.id},
                         {"carrier": "UPS", "tracking_number": tracking}, effect=apply)

    def cancel(self) -> ToolStep:
        order = self.order

        def apply(at: datetime) -> dict[str, Any]:
            order.status = "cancelled"
            return {"status": "cancelled"}

        return ToolStep("cancel_order", {"order_id": order.id}, {"order_id": order.id}, effect=apply)

    def update_address(self, address: str, *, open_orders_too: bool) -> ToolStep:
        customer = self.customer

        def apply(at: datetime) -> dict[str, Any]:
            customer.address = address
            moved = [o for o in customer.orders if open_orders_too and o.status in ("pending", "processing")]
            for order in moved:
                order.shipping_address = address
            return {"address": address, "orders_updated": [o.id for o in moved]}

        return ToolStep("update_address", {"customer_id": customer.id, "address": address},
                         {"customer_id": customer.id}, effect=apply)

    def escalate(self, reason: str) -> ToolStep:
        queue = ESCALATION_QUEUE[self.plan.intent]
        return ToolStep("escalate_to_human", {"reason": reason},
                         {"queue": queue, "position": self.rng.randint(1, 14), "estimated_wait_minutes": self.rng.randint(2, 45)})

    def error_for(self, step: ToolStep) -> ToolError:
        exception_type, service, template = PHRASES.tool_errors[step.name]
        o, c = self.order, self.customer
        if step.name == "refund_order" and (not o.card_number or self.rng.random() < 0.5):
            service, template = "refund-service", PHRASES.refund_error_500
        body = template.format(order=o.id, customer=c.id, email=c.email, n=self.rng.randint(1, 12),
                               last4=(o.card_number or "0000")[-4:])
        summary = {"TimeoutError": "tool timed out after 30s", "ConflictError": "409 Conflict"}.get(
            exception_type, "upstream service error 5xx")
        return ToolError(exception_type, f"{step.name} failed: {summary}", service, body)

    # -- one play per intent

    def play_order_status(self) -> Play:
        o, slots = self.order, self.order_slots()
        eta = day_words(self.at + timedelta(days=self.rng.randint(1, 4)), weekday=True)
        if o.status == "delivered":
            truth = (f"Order {o.id} was marked delivered on {day_words(o.delivered_at)} at {o.shipping_address}. "
                     "If you can't find it, check with neighbours or your building's front desk.")
        else:
            truth = {
                "pending": f"Your order {o.id} is waiting for payment confirmation and should ship within 2 business days.",
                "processing": f"Your order {o.id} is being packed at our warehouse and should ship by {eta}.",
                "shipped": f"Good news: order {o.id} ({o.items[0].name}) has shipped with UPS and is expected on {eta}.",
            }[o.status]
        wrong = f"Your order {o.id} was delivered on {day_words(self.at - timedelta(days=1))}. Please check around your property."
        return Play(
            opener=self.say(self.rng.choice(PHRASES.openers["order_status"]), **slots) + self.contact() + self.sign_off(),
            lookup=[self.get_order()], action=[], reply=truth, bad_action=[], bad_reply=wrong,
            complaint=self.say("That's not right, there is nothing here and the tracking for {order} still says in transit.", order=o.id),
            escalation_reason=self.rng.choice(["customer requested a human agent", "package reported lost by customer"]),
            resolution=f"Opened a carrier trace with UPS for order {o.id} and promised a replacement if not found within 3 days.",
        )

    def play_refund(self) -> Play:
        o, slots = self.order, self.order_slots()
        reason, finding = self.rng.choice([("damaged on arrival", "arrived damaged"), ("item defective", "was defective"),
                                           ("does not fit", "was returned unworn"), ("not as described", "did not match the listing")])
        paid = f"card ending {o.card_number[-4:]}" if o.card_number else o.method.replace("_", " ")
        in_window = o.delivered_at is not None and (self.at - o.delivered_at).days <= RETURN_WINDOW_DAYS
        cents = o.total_cents
        return Play(
            opener=self.say(self.rng.choice(PHRASES.openers["refund"]), **slots) + self.card_mention() + self.iban_mention()
            + self.sign_off(),
            lookup=[self.get_order()],
            action=[self.refund(reason)] if in_window or self.plan.outcome == "rolled_back" else [],
            reply=(f"I've refunded {money(cents)} for order {o.id} to your {paid}. It usually shows up in 3-5 business days."
                   if in_window or self.plan.outcome == "rolled_back" else
                   f"I'm sorry, order {o.id} was delivered more than {RETURN_WINDOW_DAYS} days ago, so it is outside our return window."),
            bad_action=[],
            bad_reply=f"Done! I've processed a full refund of {money(cents)} for order {o.id}.",
            complaint=self.say("Your chat bot told me my refund for {order} was processed but nothing has arrived and my bank "
                               "sees no pending refund.", order=o.id),
            escalation_reason=self.rng.choice(["refund amount above agent limit", "customer requested a human agent",
                                               "customer threatens chargeback"]),
            resolution=f"Refunded {money(cents)} to the original {o.method.replace('_', ' ')} for order {o.id} after confirming the item {finding}.",
            resolution_effect=lambda at: self.world.refund(o, cents, reason + " (human agent)", at),
        )

    def play_return_label(self) -> Play:
        o, slots = self.order, self.order_slots()
        in_window = o.delivered_at is not None and (self.at - o.delivered_at).days <= RETURN_WINDOW_DAYS
        return Play(
            opener=self.say(self.rng.choice(PHRASES.openers["return_label"]), **slots) + self.sign_off(),
            lookup=[self.get_order()],
            action=[self.return_label()] if in_window else [],
            reply=(f"Here is your prepaid UPS return label for order {o.id}. Drop the parcel at any UPS location within 14 days; "
                   f"the refund is issued once it reaches us." if in_window else
                   f"Unfortunately order {o.id} is past our {RETURN_WINDOW_DAYS}-day return window, so I can't create a label."),
            bad_action=[],
            bad_reply=f"Unfortunately order {o.id} is past our {RETURN_WINDOW_DAYS}-day return window, so I can't create a label.",
            complaint=self.say("The bot refused a return label for {order} saying the return window was over, but it was "
                               "delivered on {delivered}!", order=o.id, delivered=day_words(o.delivered_at)),
            escalation_reason="customer disputes return eligibility",
            resolution=f"Emailed a prepaid return label for order {o.id} and waived the restocking fee.",
            resolution_effect=lambda at: self.world.return_label(o, at),
        )

    def play_cancellation(self) -> Play:
        o, slots = self.order, self.order_slots()
        can_cancel = o.status in ("pending", "processing")
        return Play(
            opener=self.say(self.rng.choice(PHRASES.openers["cancellation"]), **slots) + self.sign_off(),
            lookup=[self.get_order()],
            action=[self.cancel()] if can_cancel else [],
            reply=(f"Order {o.id} is cancelled. You'll get {money(o.total_cents)} back on your original payment method within 5 days."
                   if can_cancel else f"Order {o.id} has already shipped, so I can't cancel it, but you can return it for free once it arrives."),
            bad_action=[],
            bad_reply=f"Order {o.id} is cancelled. You will not be charged.",
            complaint=self.say("I cancelled {order} with your bot and it still shipped and I was charged {amount}!!",
                               order=o.id, amount=money(o.total_cents)),
            escalation_reason="order already shipped, carrier intercept needed",
            resolution=f"Requested a UPS intercept for order {o.id}; refund will follow when the parcel is returned to the warehouse.",
        )

    def play_address_change(self) -> Play:
        c, o = self.customer, self.order
        street, full, without_postcode = self.world.address(c.country, self.world.fakers[c.country])
        if self.plan.outcome == "hotfixed":
            full = without_postcode
        self.pii.add(street, "ADDRESS")
        self.pii.add(full, "ADDRESS")
        return Play(
            opener=self.say(self.rng.choice(PHRASES.openers["address_change"]), new_address=full, order=o.id)
            + self.contact() + self.sign_off(),
            lookup=[self.get_customer()], action=[self.update_address(full, open_orders_too=True)],
            reply=f"Done, your address is now {full}. Orders that haven't shipped yet will go to the new address.",
            bad_action=[self.update_address(full, open_orders_too=False)],
            bad_reply=f"Done, your address is now {full}.",
            complaint=self.say("I changed my address with your chat and order {order} still went to my OLD address. Now it's lost.",
                               order=o.id),
            escalation_reason="address change for an order already in transit",
            resolution=f"Updated the shipping address of order {o.id} with the carrier and confirmed the new address by phone.",
        )

    def play_account_access(self) -> Play:
        c, rng = self.customer, self.rng
        ip = public_ipv4(rng) if rng.random() < 0.7 else public_ipv6(rng)
        birth = date(rng.randint(1950, 2004), rng.randint(1, 12), rng.randint(1, 28))
        dob = self.pii.add(rng.choice([f"{birth:%m/%d/%Y}", f"{birth:%d.%m.%Y}", f"{day_words(birth)}, {birth.year}"]), "DATE_OF_BIRTH")
        details = f"my date of birth is {dob}"
        if c.country == "US" and rng.random() < 0.6:
            details += f" and my social is {self.pii.add(ssn(rng), 'US_SSN')}"
        if rng.random() < 0.5:
            details += f", phone {self.pii.add(rng.choice(c.phone_variants), 'PHONE_NUMBER')}"
        return Play(
            opener=self.say(rng.choice(PHRASES.openers["account_access"]), {"username": "USERNAME", "ip": "IP_ADDRESS"},
                            username=c.username, email=c.email, ip=ip) + self.sign_off(),
            lookup=[self.get_customer()], action=[],
            details=details,
            reply=f"Thanks. I've sent a password reset link to {c.email}; it is valid for 30 minutes. The lock clears once you set a new password.",
            bad_action=[], bad_reply="Please use the 'Forgot password' link on the sign-in page to reset your password.",
            complaint=self.say("I did the forgot password thing 3 times, no email ever comes. The bot just repeats the same answer."),
            escalation_reason="identity verification required to unlock account",
            resolution=f"Verified identity by phone at {c.phone}, unlocked the account and reset the password.",
        )

    def play_other(self) -> Play:
        o, rng = self.order, self.rng
        item = o.items[0].name
        balance = money(rng.randint(0, 15000))
        friend = self.world.fakers[self.customer.country].first_name()
        opener, reply, answer = rng.choice([
            ("How much is left on my gift card? I used some of it on order {order}.",
             f"Your gift card balance is {balance}.", f"confirmed a gift card balance of {balance}"),
            ("Does the {item} come in a bigger size?",
             f"The {item} comes in sizes S to XXL; the size chart is on the product page.", "sent the size chart"),
            ("Is the {item} waterproof? Thinking of buying another one for my partner {friend}.",
             f"The {item} is water resistant, not fully waterproof.", "answered the waterproofing question"),
            ("Can I use two gift cards on one order?", "Yes, you can combine up to two gift cards per order.",
             "explained how to combine gift cards"),
        ])
        return Play(
            opener=self.say(opener, {"friend": "FIRST_NAME"}, order=o.id, item=item, friend=friend) + self.sign_off(),
            lookup=[self.list_orders()], action=[], reply=reply,
            bad_action=[], bad_reply="I'm sorry, I can only help with orders, refunds and returns.",
            complaint=self.say("Your assistant couldn't answer a simple question. Very disappointing."),
            escalation_reason="question outside agent scope",
            resolution=f"Replied by email: {answer}.",
        )

    def turns(self, play: Play) -> list[Turn]:
        """The conversation the outcome calls for."""
        rng, outcome, o = self.rng, self.plan.outcome, self.order
        about_order = any(step.name == "get_order" for step in play.lookup)
        interim = rng.choice(PHRASES.order_interims if about_order else PHRASES.account_interims).format(order=o.id)
        first_tools = list(play.lookup)
        turns: list[Turn] = []
        if play.details is not None:
            turns.append(Turn(play.opener, first_tools, "To verify your identity, please confirm your date of birth.", interim))
            opener, first_tools, interim = play.details, [], None
        else:
            opener = play.opener
        if outcome == "failed":
            turns.append(Turn(opener, first_tools + play.bad_action, play.bad_reply, interim))
            turns.append(Turn(play.complaint, [], "I'm sorry for the trouble. Is there anything else I can help with?"))
        elif outcome == "escalated":
            if rng.random() < 0.5:
                holding = f"I can see order {o.id}." if about_order else "I can see your account."
                turns.append(Turn(opener, first_tools, f"{holding} Let me check what I can do.", interim))
                opener, first_tools, interim = rng.choice(PHRASES.human_requests), [], None
            step = self.escalate(play.escalation_reason)
            turns.append(Turn(opener, first_tools + [step],
                               f"I've passed this to a colleague on our {step.result['queue']} team. "
                               f"You're number {step.result['position']} in the queue.", interim))
        elif outcome == "errored":
            steps = first_tools + play.action or [self.get_customer()]
            failing = steps[-1]
            failing.error = self.error_for(failing)
            turns.append(Turn(opener, steps, "I'm sorry, I'm having trouble reaching our systems right now. "
                                              "Please try again in a few minutes.", interim))
            if rng.random() < 0.5:
                retry = ToolStep(failing.name, dict(failing.arguments), error=self.error_for(failing))
                turns.append(Turn(rng.choice(PHRASES.retry_asks), [retry], "It's still not working on my side, sorry. "
                                                                    "Our team has been alerted."))
        else:
            turns.append(Turn(opener, first_tools + play.action, play.reply, interim))
            if rng.random() < 0.45:
                turns.append(Turn(casual(rng.choice(PHRASES.thanks), rng) + self.sign_off(), [],
                                   "You're welcome! Have a great day."))
        return turns
