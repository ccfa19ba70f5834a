"""The command line (`sheets-host`), its settings flags, and the benchmarks it runs."""
