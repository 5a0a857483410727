"""The payment method a customer's words ask a write to use ('refund to my credit card', 'pay the difference with my gift
card', 'to the original payment method'): fifth cold review of tau2 drafts, #12 (family 1: a requested part with no
check, the method recorded checked only for being one the customer holds). Reading, not policy: the method is pinned
only where the words name one kind, without a negation, and the customer holds exactly one method of it that the write
may use (`allowed`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ingest.models import StateRows
from taskgen.domains.retail.grader import _payment_methods

_KINDS = {"credit_card": r"\bcredit ?cards?\b", "gift_card": r"\bgift ?cards?\b", "paypal": r"\bpay ?pal\b"}
_ORIGINAL = re.compile(r"\boriginal (?:payment|method|card|form of payment)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)


def method_asked(prompt: str, methods: dict[str, dict], original: str | None, allowed: Callable[[str], bool]) -> str | None:
    """The one payment method (an id of `methods`, the customer's) the words ask for: the one of the kind they name
    (its `source`), or the order's `original` where they ask for the original method; None when they name none, several,
    one under a negation, or the customer holds no single such method the write may use."""
    sentences = [part for part in re.split(r"(?<=[.!?;])\s+", prompt) if any(re.search(kind, part, re.IGNORECASE) for kind in _KINDS.values())
                 or _ORIGINAL.search(part)]
    if not sentences or any(_NEGATION.search(part) for part in sentences):
        return None
    text = " ".join(sentences)
    kinds = [kind for kind, words in _KINDS.items() if re.search(words, text, re.IGNORECASE)]
    if _ORIGINAL.search(text):
        return original if not kinds and original in methods and allowed(original) else None
    if len(kinds) != 1:
        return None
    fitting = [method for method, row in methods.items() if str(row.get("source")) == kinds[0] and allowed(method)]
    return fitting[0] if len(fitting) == 1 else None


def payment_pinned(state: StateRows, order_id: str | None, customer_id: str, prompt: str, original_or_gift_card: bool) -> dict[str, str]:
    """{'method': the payment method the words ask for} where they tell one the write may use (`method_asked`), else {}."""
    order = state.get("order", {}).get(order_id or "", {})
    methods = _payment_methods(state.get("customer", {}).get(str(customer_id), {}))
    paid = [str(entry.get("payment_method_id")) for entry in order.get("payment_history") or [] if isinstance(entry, dict)]
    allowed = (lambda method: method in paid or methods[method].get("source") == "gift_card") if original_or_gift_card else (lambda method: True)
    method = method_asked(prompt, methods, paid[0] if paid else None, allowed)
    return {"method": method} if method else {}
