"""Subcommands of ``dcsflow``: one module each, defining ``COMMAND`` (see :mod:`dcsflow.flow.cli`)."""
