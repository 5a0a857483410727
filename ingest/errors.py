"""The base of every error worded for a person."""


class UserFacingError(Exception):
    """What went wrong and what to do, in one line that holds no record's value: safe to print,
    to log and to put in a span. The command line shows the message alone (no traceback) and
    exits with `exit_code`: 2 for a problem in what the person gave (arguments, configuration,
    mapping), 1 for a run that could not be done."""

    exit_code = 1
