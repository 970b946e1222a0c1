"""The `gitfleet` command line: one module per command, each thin over one library call."""
