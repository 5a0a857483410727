"""`make bench`: throughput, incremental reruns, the on-call path and peak memory of trace2task."""
