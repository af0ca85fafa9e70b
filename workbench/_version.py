"""The package's version, read once from its installed metadata (``pyproject.toml``)."""

from importlib.metadata import version

__version__ = version("workbench")

__all__ = ["__version__"]
