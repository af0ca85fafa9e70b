"""Start llama-cpp-python's OpenAI-compatible server with llama.cpp's extra buffer types off.

Run by path with the interpreter of the environment that has
``llama-cpp-python[server]`` (not the workbench's): ``python _llama_server.py
--model X.gguf --host 127.0.0.1 --port 8765 ...``; every argument goes to
``llama_cpp.server``. This file imports nothing from the workbench.

Why: a wheel built from source on a CPU with AMX tiles can die on the first
completion with an illegal-instruction trap in the weight-repacking buffers.
``llama_model_params.use_extra_bufts`` turns them off, but the ``Llama`` class
does not expose it, so the model parameters it starts from are patched here.
"""

from __future__ import annotations

from typing import Any


def _without_extra_bufts() -> None:
    import llama_cpp.llama_cpp as native

    defaults = native.llama_model_default_params

    def model_params() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    native.llama_model_default_params = model_params


if __name__ == "__main__":
    _without_extra_bufts()
    from llama_cpp.server.__main__ import main

    main()
