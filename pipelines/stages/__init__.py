"""The application layer, without Dagster: what each stage does for one day, over the store and the libraries."""
