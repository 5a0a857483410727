"""Turn scrubbed incident sessions into draft benchmark tasks (no Dagster here).

Stages: classify -> stratified sample -> freeze seed -> draft positive/negative pair ->
validate -> health check with fake agents -> write files -> human review and release.
"""
