"""``dcsflow cache``: the job cache (:mod:`dcsflow.flow.cache`): where it is, its size, clearing it."""

from __future__ import annotations

import json

import click


@click.group("cache")
def COMMAND():
    """The job cache: every job of a build (a Yosys or ABC run, a conventional candidate, TMAP, a
    proof, a packing, a placement, the front-end check) keyed by the SHA-256 of its inputs, options
    and tool versions, so that no build computes a job twice. Location: $DCSFLOW_CACHE, else
    $XDG_CACHE_HOME/dcsflow, else ~/.cache/dcsflow; least recently used entries go first above the
    size cap (5 GB, a project's [cache] max_gb). It never holds parameter values.
    """


@COMMAND.command("info")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def info_command(as_json):
    """Where the cache is, how many entries it holds and their size."""
    from .. import cache

    d = cache.info(cache.default_root())
    if as_json:
        click.echo(json.dumps(d))
        return
    click.echo(f"job cache: {d['root']}")
    click.echo(f"entries: {d['entries']}, {d['bytes'] / 1e6:.1f} MB of {d['max_bytes'] / 1e9:g} GB")


@COMMAND.command("clear")
def clear_command():
    """Remove every entry (builds then compute every job again)."""
    from .. import cache
    from ..errors import FlowError

    try:
        n = cache.clear(cache.default_root())
    except cache.CacheError as e:
        raise FlowError(str(e)) from None
    click.echo(f"job cache {cache.default_root()}: {n} entries removed")
