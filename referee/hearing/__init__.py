"""Hearing: grammars, speech recognisers, cross-talk filtering and transcription (shell)."""
