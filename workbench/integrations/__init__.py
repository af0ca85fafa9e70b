"""Adapters that let an agent built with any framework run as an arm.

``common`` is the shared layer (constants, schemas, transcripts and replay,
preset checks, ``run_sync``); ``base.BaseAdapter`` is the class a framework
adapter completes by writing one ``ask`` method; ``callable`` wraps a plain
Python function. Framework adapters live in their own modules and import their
framework lazily, so a replay needs none of them installed.
"""

from workbench.integrations.base import AdapterInfo, BaseAdapter
from workbench.integrations.callable import CallableAgentAdapter, callable_agent

__all__ = ["AdapterInfo", "BaseAdapter", "CallableAgentAdapter", "callable_agent"]
