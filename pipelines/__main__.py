"""`python -m pipelines` is the `trace2task` command."""

from pipelines.cli.app import main

main()
