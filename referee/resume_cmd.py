"""Continue a game after a crash with the same scores."""

from .play_cmd import RESUME_DESCRIPTION as DESCRIPTION  # noqa: F401 - read by the CLI
from .play_cmd import add_resume_arguments as add_arguments  # noqa: F401
from .play_cmd import run_resume as run  # noqa: F401
