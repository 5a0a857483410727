"""The reference agent's reading of the catalogue, written apart from the drafter (`catalogue_branch.py`, `variants.py`):
it reads the product through the backend's `get_product_details`, works out the variant the customer's words ask for
option by option, and follows the branch of their condition the catalogue makes true ("if it is not available, cancel
the whole order"; "if the price is more than 3000, cancel"; "if it is less than 200 bucks exchange it, if not return it")."""

from __future__ import annotations

import re
from collections.abc import Callable

from taskgen.domains import Environment

_CLAUSES = re.compile(r"(?<=[.!?])\s+")
_IF = re.compile(r"\b(?:if|unless|otherwise)\b", re.IGNORECASE)
_CANCEL = re.compile(r"\bcancel", re.IGNORECASE)
_RETURN = re.compile(r"\breturn|\bsend (?:it |them )?back", re.IGNORECASE)
_CHANGE = re.compile(r"\b(?:exchang|chang|modif|swap|upgrad|replac)", re.IGNORECASE)
_NOT_AVAILABLE = re.compile(r"\bnot (?:\w+ )?available|\bunavailable|\bout of stock|\bsold out", re.IGNORECASE)
_MORE_THAN = re.compile(r"\b(?:more|greater|higher|above|over)(?: than)? \$?(\d+(?:\.\d+)?)", re.IGNORECASE)
_LESS_THAN = re.compile(r"\b(?:less|lower|cheaper|under|below)(?: than)? \$?(\d+(?:\.\d+)?)", re.IGNORECASE)
_OTHERWISE = re.compile(r"^\s*(?:if not|otherwise)\b", re.IGNORECASE)
_KEPT = re.compile(r"\bsame\b(?!\s+order\b)[^.,;]*|\bwithout changing\b[^.,;]*", re.IGNORECASE)
"""Words keeping an option as it is ('the same color', 'without changing the size'); 'in the same order' is no option."""


def _said(value: str, text: str) -> bool:
    """The words say an option's value as a word of its own ('4 ft' said as '4 foot'); a value of one or two letters
    ('S', 'XL') only as written, so "I'm" is no size M."""
    text = re.sub(r"\b(\d+)\s*-?\s*(?:foot|feet)\b", r"\1 ft", text)
    flags = 0 if len(value) <= 2 else re.IGNORECASE
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", text, flags) is not None


def wanted_variant(item: dict, product: dict, words: str) -> str | None:
    """The variant the words ask the item to become, option by option: an option keeps the item's value unless the words
    say exactly one other value the product has for it; None when that makes no variant other than the item."""
    words = _KEPT.sub(" ", words)
    variants = product.get("variants") if isinstance(product.get("variants"), dict) else {}
    current = item.get("options") if isinstance(item.get("options"), dict) else {}
    wanted = dict(current)
    for key in current:
        values = {str((variant.get("options") or {}).get(key)) for variant in variants.values() if isinstance(variant, dict)}
        said = [value for value in values - {str(current[key])} if _said(value, words)]
        if len(said) == 1:
            wanted[key] = said[0]
    if wanted == current:
        return None
    return next((variant_id for variant_id, variant in sorted(variants.items())
                 if {key: str(value) for key, value in (variant.get("options") or {}).items()} == {k: str(v) for k, v in wanted.items()}), None)


def _cheapest(item: dict, product: dict) -> str | None:
    variants = product.get("variants") if isinstance(product.get("variants"), dict) else {}
    on_sale = sorted((float(variant.get("price") or 0), variant_id) for variant_id, variant in variants.items()
                     if variant_id != str(item.get("item_id")) and isinstance(variant, dict) and variant.get("available") is not False)
    return on_sale[0][1] if on_sale else None


def conditional_change(prompt: str, order: dict, env: Environment, says: Callable[[str, str], bool]) -> tuple[str, dict, str, str, str] | None:
    """(what to do: 'change' / 'cancel' / 'return', the item, the new variant or '', the clause it is asked in, what to
    tell of the variant) where the customer asks for an item change with a fallback under a condition the catalogue
    settles; None otherwise."""
    clauses = [clause.strip() for clause in _CLAUSES.split(prompt.strip()) if clause.strip()]
    fallbacks = [clause for clause in clauses if _IF.search(clause) and (_CANCEL.search(clause) or _RETURN.search(clause))]
    changes = [index for index, clause in enumerate(clauses) if _CHANGE.search(clause) and not _CANCEL.search(clause) and not _RETURN.search(clause)]
    if not fallbacks or not changes:
        return None
    change = clauses[changes[0]]
    nearby = " ".join(clauses[max(changes[0] - 1, 0): changes[0] + 1])
    items = [item for item in order.get("items") or [] if isinstance(item, dict) and item.get("name") and says(nearby, str(item["name"]))]
    if len({str(item.get("item_id")) for item in items}) != 1:
        return None
    item = items[0]
    product = env.call("get_product_details", product_id=str(item.get("product_id"))) if item.get("product_id") else None
    if not isinstance(product, dict):
        return None
    less = _LESS_THAN.search(change)
    target = _cheapest(item, product) if less and re.search(r"\bcheapest\b", prompt, re.IGNORECASE) else wanted_variant(item, product, change)
    if target is None:
        return None
    variant = product["variants"][target]
    price = float(variant.get("price") or 0)

    def fallback(clause: str) -> tuple[str, dict, str, str, str]:
        return ("cancel" if _CANCEL.search(clause) else "return", item, "", clause, told(prompt, variant))

    if variant.get("available") is False:
        gone = next((clause for clause in fallbacks if _NOT_AVAILABLE.search(clause)), None)
        return fallback(gone) if gone else None
    for clause in fallbacks:
        more = _MORE_THAN.search(clause)
        if more and price > float(more.group(1)):
            return fallback(clause)
    if less and price >= float(less.group(1)):
        otherwise = next((clause for clause in fallbacks if _OTHERWISE.search(clause)), None)
        return fallback(otherwise) if otherwise else None
    if not less and not any(_NOT_AVAILABLE.search(clause) or _MORE_THAN.search(clause) for clause in fallbacks):
        return None  # a fallback on something the catalogue does not tell ("if there are any issues")
    return ("change", item, target, change, told(prompt, variant))


def told(prompt: str, variant: dict) -> str:
    """What the customer asked to know of the variant ("the cheapest one and its options"), as a sentence of the reply."""
    said = []
    if re.search(r"\bcheapest\b", prompt, re.IGNORECASE) and re.search(r"\b(?:know|what|tell)\b", prompt, re.IGNORECASE):
        said.append(f"It costs {float(variant.get('price') or 0):.2f}.")
    if re.search(r"\bits options\b", prompt, re.IGNORECASE):
        said.append("Its options: " + ", ".join(f"{key} {value}" for key, value in sorted((variant.get("options") or {}).items())) + ".")
    return " ".join(said)
