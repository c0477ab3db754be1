"""llama.cpp models for smol: `LlamaCppModel`, the embedded default, and `LlamaServer`.

Importing this package is cheap; llama.cpp itself loads when a model is first used.

Names are imported when first read: plugin discovery (every `smolagent --help`) imports this
package and pays nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {
    "code_action_grammar": "smol_core.plugin_api",
    "tool_call_schema": "smol_core.plugin_api",
    "EMBEDDED_MODEL_ID": "smol_model_llamacpp.embedded",
    "ModelFileNotFoundError": "smol_model_llamacpp.embedded",
    "NotAGGUFFileError": "smol_model_llamacpp.embedded",
    "default_model_path": "smol_model_llamacpp.embedded",
    "resolve_model_path": "smol_model_llamacpp.embedded",
    "LlamaCppModel": "smol_model_llamacpp.model",
    "LlamaServer": "smol_model_llamacpp.server",
    "complete_truncated_json": "smol_model_llamacpp.structured",
}
__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # what mypy and IDEs see: the same names
    from smol_core.plugin_api import (
        code_action_grammar as code_action_grammar,
        tool_call_schema as tool_call_schema,
    )
    from smol_model_llamacpp.embedded import (
        EMBEDDED_MODEL_ID as EMBEDDED_MODEL_ID,
        ModelFileNotFoundError as ModelFileNotFoundError,
        NotAGGUFFileError as NotAGGUFFileError,
        default_model_path as default_model_path,
        resolve_model_path as resolve_model_path,
    )
    from smol_model_llamacpp.model import LlamaCppModel as LlamaCppModel
    from smol_model_llamacpp.server import LlamaServer as LlamaServer
    from smol_model_llamacpp.structured import complete_truncated_json as complete_truncated_json
