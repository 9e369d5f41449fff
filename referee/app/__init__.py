"""The running referee: the listener, the loop, journals on disk and the screen."""
