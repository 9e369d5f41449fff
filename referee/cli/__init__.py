"""The ``referee`` command line: one module per subcommand."""
