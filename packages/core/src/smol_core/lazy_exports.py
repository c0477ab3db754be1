"""Names a package exports, imported on first use (PEP 562): the one helper every front door uses.

Why lazily: `import smol_core` must not load the agent loop, and importing a plugin package (which
plugin discovery does for every installed plugin) must not import its SDK (torch, Gradio, the MCP
SDK, ...). So a package's `__init__` names where each public name lives, and the name is imported
when it is first read:

    from typing import TYPE_CHECKING

    from smol_core.plugin_api import lazy_exports     # in the core: from smol_core.lazy_exports

    _EXPORTS = {"MyModel": "my_pkg.model", "my_helper": "my_pkg.helpers"}
    __getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

    if TYPE_CHECKING:                                   # what mypy and IDEs see: the same names
        from my_pkg.helpers import my_helper
        from my_pkg.model import MyModel

A name, once read, is stored in the module's globals, so the next read is an ordinary one. A name
whose module is the package's own submodule of that name (`"exceptions": "smol_core.exceptions"`)
exports the submodule.

Standard library only, and nothing of smol_core: it is on the lowest floor, and the package's own
`__init__` imports it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    namespace: dict[str, Any],
    exports: Mapping[str, str],
    *,
    otherwise: Callable[[str], Any] | None = None,
    hint: str = "",
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """The module's `__getattr__`, `__dir__` and `__all__`, for `exports` ({name: module it lives in}).

    `namespace` is the module's `globals()`. `__all__` is the exported names, sorted; `dir()` lists
    them and the module's dunder attributes (`__version__`, ...), not its private helpers. A name not
    in `exports` goes to `otherwise` when given (`smol_core` resolves smolagents' names there), else
    raises the usual `AttributeError`, with `hint` after it (what to do instead).
    """
    module_name: str = namespace["__name__"]
    names = sorted(exports)

    def __getattr__(name: str) -> Any:
        where = exports.get(name)
        if where is None:
            if otherwise is not None:
                return otherwise(name)
            message = f"module {module_name!r} has no attribute {name!r}"
            raise AttributeError(
                f"{message}. {hint}" if hint else message, name=name, obj=sys.modules.get(module_name)
            )
        loaded = importlib.import_module(where)
        value = loaded if where == f"{module_name}.{name}" else getattr(loaded, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(
            {*names, *(name for name in namespace if name.startswith("__") and name.endswith("__"))}
        )

    return __getattr__, __dir__, names
