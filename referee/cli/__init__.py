"""The ``referee`` command line: one module per subcommand."""

from referee.core.errors import RefereeError


class UsageError(RefereeError, ValueError):
    """Command-line options that do not make sense; the message names the option."""
