"""The one base of every error the referee raises on purpose: :class:`RefereeError`.

The commands catch it (and OSError, for files and devices) to turn a problem the
user can fix into a message; anything else is a bug and keeps its traceback.
Errors that were ``ValueError`` s still are (a second base), so code that
catches ``ValueError`` goes on catching them. It lives in the core, which may
import only the standard library and itself, so that the core's errors can
derive from it too."""


class RefereeError(Exception):
    """Something the referee cannot do, with a message that says why."""
