"""The catalogue a seed may carry (tau2-bench's products, their variants by item id), and the variant a customer's
words ask for: what an item change writes (the new item, its price difference) where code can tell it."""

from __future__ import annotations

import re

from ingest.models import StateRows

_PRICE_WORDS = re.compile(r"\bcheap\w*|\bexpensive\b|\bpric\w*|\bcost\w*|\bbudget\b|\$\s?\d|\bunder \d|\bless than\b", re.IGNORECASE)
"""Words choosing a variant by its price ('the cheapest one under $300'): the catalogue's prices decide, not its options."""
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
    fully; None when the seed has no catalogue of it, the words choose by price, or they name an option (a colour)
    without its value ('in the colour of my other bottle')."""
    variants = catalogue(state)
    product = str(item.get("product_id") or variants.get(str(item.get("item_id")), ("", {}))[0])
    if not product or _PRICE_WORDS.search(prompt):
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
        unnamed = [key for key in options if key not in changed and any(re.search(rf"\b{name}\b", prompt.lower())
                                                                         for name in _OPTION_NAMES.get(key, (key,)))]
        if not unnamed:  # an option the words name, kept as it was ('the same colour' aside): not told which
            matching.append((len(changed), item_id))
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
