"""Group repeated error messages by template with drain3 (in memory, order-independent)."""

from __future__ import annotations

from collections.abc import Iterable

from drain3 import TemplateMiner
from drain3.masking import MaskingInstruction
from drain3.template_miner_config import TemplateMinerConfig

_MASKS = (
    (r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", "EMAIL"),
    (r"#W\d+", "ORDER"),
    (r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", "UUID"),
    (r"\b[0-9a-fA-F]{16,}\b", "HEX"),
    (r"\b\d+(?:\.\d+)?\b", "NUM"),
)


def _miner() -> TemplateMiner:
    config = TemplateMinerConfig()
    config.profiling_enabled = False
    config.masking_instructions = [MaskingInstruction(pattern, mask) for pattern, mask in _MASKS]
    return TemplateMiner(config=config)


def templates_for(messages: Iterable[str]) -> dict[str, str]:
    """message -> template. All distinct messages are mined in sorted order first, then each is
    matched against the final clusters, so the result does not depend on input order."""
    distinct = sorted(set(messages))
    miner = _miner()
    for message in distinct:
        miner.add_log_message(message)
    templates: dict[str, str] = {}
    for message in distinct:
        cluster = miner.match(message, full_search_strategy="fallback")
        templates[message] = cluster.get_template() if cluster is not None else message
    return templates
