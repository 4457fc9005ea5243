"""Subcommands of ``dcsflow``: one module each, defining ``COMMAND`` (see :mod:`flow.cli`)."""
