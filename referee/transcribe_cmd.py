"""Recognise calls, shouts and commands in WAV recordings (one player per channel)."""

from .hearing.transcribe import DESCRIPTION, add_arguments, run  # noqa: F401
