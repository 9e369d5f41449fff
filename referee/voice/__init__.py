"""The referee's voice: speech synthesis, playback and the announcement queue."""
