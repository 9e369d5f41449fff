"""referee: an offline, voice-driven referee for card games played with real cards."""

__version__ = "0.1.0"
