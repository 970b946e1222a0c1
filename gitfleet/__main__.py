"""`python -m gitfleet` runs the command line."""

from gitfleet.cli.main import main

main()
