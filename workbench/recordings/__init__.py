"""Recordings: committed transcripts plus the results they must reproduce, replayed as tests.

``record(path, agents, ...)`` runs the arms live and writes a recording folder;
``replay(path, check=True)`` re-executes it offline (no framework, no API key)
and raises ``RecordingError`` listing every difference. ``pytest --recordings DIR``
turns each recording under DIR into a test (``workbench.recordings.pytest_plugin``).

A recording may name only trusted arms and hooks: the workbench's own, those of
the ``workbench.arms`` entry-point group, and those your code passes to
``trust(...)``; anything else is refused before it is imported.
"""

from workbench._trust import ENTRY_POINT_GROUP, distrust, trust, trusted_names
from workbench.recordings.service import ReplayReport, find_recordings, record, replay

__all__ = [
    "ENTRY_POINT_GROUP",
    "ReplayReport",
    "distrust",
    "find_recordings",
    "record",
    "replay",
    "trust",
    "trusted_names",
]
