"""Tablée's benchmark (``make bench``): figures and ratios, printed, never asserted.

One module per measurement, each with a ``run(...)`` returning ``Figure`` rows:

- ``rolls``: free rolls per second, ours against the ``d20`` library, same random source;
- ``fanout``: one event to 1,000 SSE subscribers of one worker, and memory per connection;
- ``latency``: POST → committed → delivered to the last of a table's 6 viewers, 50 tables;
- ``growth``: action latency on a match with 10,000 events ÷ on a match with 10;
- ``throughput``: actions per second ÷ a bare FastAPI endpoint doing one SQLite insert.

The server runs in a subprocess (``python -m app serve``, one uvicorn worker, SQLite in a
temporary directory) so that it and the load generator (asyncio + httpx, in this process)
do not share a GIL. ``docs/benchmarks.md`` explains each figure and quotes a run.
"""
