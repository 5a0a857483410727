"""Exports of a pinned release to where agents are evaluated: Inspect AI (`inspect`) and tau2-bench (`tau2`).

Both read `<out>/releases/<version>/` only (never the working task files), one split at a time,
and write byte-identical files when run twice.
"""
