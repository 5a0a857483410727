"""The `trace2task` command line: `app` (runs, on-call, checks) and `review` (the reviewer's commands)."""
