"""The metrics glossary as a service; the definitions live beside the metrics, in
``workbench.evaluation.glossary``, so reports and services read the same text."""

from workbench.evaluation.glossary import (
    ATTRIBUTION,
    CAVEATS,
    COMPARISON,
    METRICS,
    STEPS,
    TEARSHEET,
    definition,
    definitions_for,
    metrics_glossary,
)

__all__ = [
    "ATTRIBUTION",
    "CAVEATS",
    "COMPARISON",
    "METRICS",
    "STEPS",
    "TEARSHEET",
    "definition",
    "definitions_for",
    "metrics_glossary",
]
