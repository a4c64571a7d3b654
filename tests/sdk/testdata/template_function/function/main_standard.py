"""The composition function's main CLI, written with the SDK's standard flags (its cli module)."""

import click

from crossfn.sdk import cli as sdkcli
from function import fn


@click.command()
@sdkcli.standard_options
def cli(**kwargs):
    """A Crossplane composition function."""
    sdkcli.run(fn.FunctionRunner(), **kwargs)


if __name__ == "__main__":
    cli()
