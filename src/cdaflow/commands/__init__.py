"""Subcommands of the `cdaflow` CLI; each module defines `add_parser(subparsers)`."""
