"""The only Dagster code: assets, asset checks, resources, jobs, schedule, sensor and the run launcher.

Each piece calls the plain application layer (`pipelines.stages`, `pipelines.store`).
"""
