"""Continue a game after a crash with the same scores."""

from referee.cli.play import RESUME_DESCRIPTION as DESCRIPTION  # noqa: F401 - read by the CLI
from referee.cli.play import add_resume_arguments as add_arguments  # noqa: F401
from referee.cli.play import run_resume as run  # noqa: F401
