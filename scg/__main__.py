"""``python -m dcsflow.scg``: the runtime's command line (:mod:`dcsflow.scg.cli`)."""

from .cli import run

if __name__ == "__main__":
    run()
