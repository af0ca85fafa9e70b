"""Recordings: committed transcripts plus the results they must reproduce, replayed as tests.

``record(path, agents, ...)`` runs the arms live and writes a recording folder;
``replay(path, check=True)`` re-executes it offline (no framework, no API key)
and raises ``RecordingError`` listing every difference. ``pytest --recordings DIR``
turns each recording under DIR into a test (``workbench.recordings.pytest_plugin``).
"""

from workbench.recordings.service import ReplayReport, find_recordings, record, replay

__all__ = ["ReplayReport", "find_recordings", "record", "replay"]
