"""The MCP server: the workbench's deterministic capabilities as agent tools.

``workbench mcp --store DIR`` serves them on stdio. The surface (what is exposed,
withheld and forbidden) is plain data in ``workbench.mcp.surface``; the tools are
typed methods in ``workbench.mcp.tools``; the ``mcp`` SDK is imported only by
``workbench.mcp.server``, when a server is built (``pip install "workbench[mcp]"``).
"""

from workbench.mcp.audit import AuditLog, reproduce
from workbench.mcp.surface import DEFERRED_PARAMS, EXPOSED_TOOLS, FORBIDDEN_TOOLS
from workbench.mcp.tools import Toolbox

__all__ = [
    "DEFERRED_PARAMS",
    "EXPOSED_TOOLS",
    "FORBIDDEN_TOOLS",
    "AuditLog",
    "Toolbox",
    "reproduce",
]
