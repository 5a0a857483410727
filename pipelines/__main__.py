"""`python -m pipelines` is the `trace2task` command."""

from pipelines.cli import main

main()
