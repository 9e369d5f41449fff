"""Audio in: WAV files, sample-rate conversion and (in the shell) microphones."""
