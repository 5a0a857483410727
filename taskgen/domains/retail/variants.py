"""The catalogue a seed may carry (tau2-bench's products, their variants by item id), and the variant a customer's
words ask for: what an item change writes (the new item, its price difference) where code can tell it."""

from __future__ import annotations

import re

from ingest.models import StateRows

_PRICE_WORDS = re.compile(r"\bcheap\w*|\bexpensive\b|\bpric\w*|\bcost\w*|\bbudget\b|\$\s?\d|\bunder \d|\bless than\b", re.IGNORECASE)
"""Words choosing a variant by its price ('the cheapest one under $300'): the catalogue's prices decide, not its options."""
_CHEAPEST = re.compile(r"\bcheapest\b|\blowest[- ]price[ds]?\b|\bleast expensive\b", re.IGNORECASE)
"""Words asking for the catalogue's cheapest variant: its prices decide, one way."""
_NO_DEARER = re.compile(r"\b(?:same|equal)\b[^.?!;]{0,25}\bor (?:lower|less|cheaper)\b|\bno more expensive\b"
                        r"|\b(?:not|no) (?:cost|pay(?:ing)?) more\b", re.IGNORECASE)
"""Words asking for a variant costing no more than the item ('I want the price to be the same or lower')."""
_OPTION_NAMES = {"color": ("color", "colour"), "colour": ("color", "colour")}


def catalogue(state: StateRows) -> dict[str, tuple[str, dict]]:
    """The catalogue the seed carries, if any: item id -> (its product's id, the variant), from `product` rows
    keeping their variants by item id (tau2-bench's products)."""
    found: dict[str, tuple[str, dict]] = {}
    for product_id, row in state.get("product", {}).items():
        variants = row.get("variants") if isinstance(row, dict) else None
        for item_id, variant in (variants.items() if isinstance(variants, dict) else []):
            found[str(item_id)] = (str(row.get("product_id", product_id)), variant if isinstance(variant, dict) else {})
    return found


def price_cents(value: object) -> int | None:
    """A catalogue or order item's price (currency units) in cents."""
    return round(float(value) * 100) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _squashed(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _mentions(prompt: str, value: object) -> bool:
    """The words name an option's value ('red', '1000ml' written '1000 ml', 'XXL'), as words of their own."""
    text = str(value).lower().strip()
    if not text:
        return False
    if re.search(rf"(?<![a-z0-9]){re.escape(text)}(?![a-z0-9])", prompt.lower()):
        return True
    squashed = _squashed(text)
    return len(squashed) >= 4 and any(re.search(rf"(?<![a-z0-9]){re.escape(squashed)}(?![a-z0-9])", _squashed(part))
                                      for part in re.split(r"[,.;!?]", prompt.lower()))


def variant_asked(item: dict, state: StateRows, prompt: str) -> str | None:
    """The one variant the words ask an order item to become: another available variant of its product (the seed's
    catalogue) whose every option differing from the item's the words name, no other candidate's being named as
    fully (an option they name with the item's own value, '{'kit size': 'professional'}', is kept, not left open); where
    they ask for the cheapest, the cheapest of those (of all, when they name no option), or for no dearer one, those
    costing no more than the item did; None when the seed has no catalogue of it, the words choose by price otherwise
    ('under $300'), or they name an option (a colour) without its value ('in the colour of my other bottle')."""
    variants = catalogue(state)
    product = str(item.get("product_id") or variants.get(str(item.get("item_id")), ("", {}))[0])
    cheapest, no_dearer = bool(_CHEAPEST.search(prompt)), bool(_NO_DEARER.search(prompt))
    if not product or (_PRICE_WORDS.search(prompt) and not (cheapest or no_dearer)):
        return None
    old = item.get("options") if isinstance(item.get("options"), dict) else {}
    candidates = {item_id: variant for item_id, (owner, variant) in variants.items()
                  if owner == product and item_id != str(item.get("item_id")) and variant.get("available", True) is not False}
    matching = []
    for item_id, variant in candidates.items():
        options = variant.get("options") if isinstance(variant.get("options"), dict) else {}
        changed = {key: value for key, value in options.items() if old.get(key) != value}
        if not changed or not all(_mentions(prompt, value) for value in changed.values()):
            continue
        unnamed = [key for key in options if key not in changed and not _mentions(prompt, old.get(key, "")) and any(
            re.search(rf"\b{name}\b", prompt.lower()) for name in _OPTION_NAMES.get(key, (key,)))]
        if not unnamed:  # an option the words name, kept as it was ('the same colour' aside): not told which
            matching.append((len(changed), item_id))
    price = lambda item_id: price_cents(candidates[item_id].get("price"))  # noqa: E731
    if no_dearer and not cheapest:
        # "the same price or lower": the variants the words ask for that cost no more than the item did
        paid = price_cents(item.get("price"))
        matching = [(count, item_id) for count, item_id in matching if paid is not None and (price(item_id) or 0) <= paid]
    if cheapest:
        # "the cheapest one": among the variants the words ask for, else (they name no option) among all, the cheapest
        pool = [item_id for _, item_id in matching] or ([] if matching else list(candidates))
        prices = sorted((price(item_id), item_id) for item_id in pool if price(item_id) is not None)
        return prices[0][1] if prices and (len(prices) == 1 or prices[0][0] < prices[1][0]) else None
    if not matching:
        return None
    most = max(count for count, _ in matching)
    best = [item_id for count, item_id in matching if count == most]
    return best[0] if len(best) == 1 else None


def price_difference(state: StateRows, order_id: str, items: list[str], new_items: list[str]) -> int | None:
    """What replacing the order's `items` by the catalogue's `new_items` costs, in cents (negative: the customer is
    refunded); None when a price is unknown."""
    order = state.get("order", {}).get(order_id) or {}
    held = {str(item.get("item_id")): item for item in order.get("items") or [] if isinstance(item, dict)}
    variants = catalogue(state)
    old = [price_cents(held.get(item, {}).get("price")) for item in items]
    new = [price_cents(variants.get(item, ("", {}))[1].get("price")) for item in new_items]
    return None if None in old or None in new or len(old) != len(new) else sum(new) - sum(old)  # type: ignore[arg-type]


def unpinned_variant_questions(expectations: list) -> list[str]:
    """A review question for each order whose item change the task accepts as any other available variant of the same
    product (the words and the seed's catalogue tell no one variant: several fit, or the words choose by what code does
    not read, 'a larger frame'): a person pins it or says the choice is the customer's (fifth cold review, #12)."""
    options = [option for item in expectations for option in (item.any_of if item.check == "any_of" else [item])]
    orders = dict.fromkeys(str(option.args.get("order_id")) for option in options
                           if option.check in ("items_replaced", "exchange_variants") and not option.args.get("new_items"))
    return [f"The customer's words and the seed's catalogue tell no one new variant for the items changed on order {order_id}: "
            "the task accepts any other available variant of the same product. Which variant did the customer ask for (pin it), "
            "or is any of them right?" for order_id in orders]
