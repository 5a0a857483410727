"""Scrub personal data from sessions and state: Presidio detection, Faker stand-ins, leak gate."""

from scrubbers.config import ScrubConfig
from scrubbers.consistency import ConsistencyMap
from scrubbers.leakgate import LeakVerdict, check_leaks
from scrubbers.paths import ScrubPathResult, scrub_path
from scrubbers.pseudonyms import Pseudonymizer, load_secret
from scrubbers.scrubber import ScrubReport, ScrubResult, Scrubber

__all__ = [
    "ConsistencyMap",
    "LeakVerdict",
    "Pseudonymizer",
    "ScrubConfig",
    "ScrubPathResult",
    "ScrubReport",
    "ScrubResult",
    "Scrubber",
    "check_leaks",
    "load_secret",
    "scrub_path",
]
